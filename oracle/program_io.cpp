// Reading and writing program files; see oracle/program_io.h.
#include "oracle/program_io.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/json_format.h"
#include "formats/text_format.h"
#include "oracle/pt2_archive.h"

namespace epsmith {
namespace {

std::string extensionOf(const std::string& path) { return std::filesystem::path(path).extension().string(); }

Diagnostic located(const std::string& file, const Diagnostic& e) {
  if (e.where.empty()) return {file, e.message};
  // Text positions read as file:line:col, JSON paths as "file: $.path".
  bool is_position = !e.where.empty() && std::isdigit(static_cast<unsigned char>(e.where[0]));
  return {file + (is_position ? ":" : ": ") + e.where, e.message};
}

}  // namespace

std::optional<FileFormat> formatFromPath(const std::string& path) {
  auto ext = extensionOf(path);
  if (ext == ".json") return FileFormat::Json;
  if (ext == ".ept" || ext == ".txt") return FileFormat::Text;
  if (ext == ".pt2") return FileFormat::Pt2;
  return std::nullopt;
}

Expected<ExportedProgram> parseProgram(const std::string& contents, FileFormat format, const std::string& name) {
  auto result = format == FileFormat::Json  ? readProgramJson(contents)
                : format == FileFormat::Pt2 ? readProgramPt2(contents)
                                            : parseProgramText(contents);
  if (!result.ok()) return located(name, result.error());
  return result;
}

Expected<std::string> readFileBytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Diagnostic{path, "is a directory, not a file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Diagnostic{path, std::string("cannot open: ") + std::strerror(errno)};
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Diagnostic{path, "read error"};
  return ss.str();
}

Expected<ExportedProgram> loadProgram(const std::string& path) {
  auto read = readFileBytes(path);
  if (!read.ok()) return read.error();
  std::string contents = std::move(read.value());
  auto format = formatFromPath(path);
  if (!format) {
    auto first = contents.find_first_not_of(" \t\r\n");
    format = contents.rfind("PK\x03\x04", 0) == 0                   ? FileFormat::Pt2
             : first != std::string::npos && contents[first] == '{' ? FileFormat::Json
                                                                    : FileFormat::Text;
  }
  return parseProgram(contents, *format, path);
}

Expected<std::string> renderProgram(const ExportedProgram& p, FileFormat format) {
  if (format == FileFormat::Text) return printProgramText(p);
  if (format == FileFormat::Pt2) return writeProgramPt2(p);
  return writeProgramJson(p);
}

std::optional<Diagnostic> writeFileAtomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return Diagnostic{path, std::string("cannot create a temporary file: ") + std::strerror(errno)};
  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return Diagnostic{path, std::string("write failed: ") + std::strerror(err)};
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return Diagnostic{path, std::string("write failed: ") + std::strerror(errno)};
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Diagnostic{path, std::string("cannot rename into place: ") + std::strerror(err)};
  }
  return std::nullopt;
}

std::optional<Diagnostic> saveProgram(const std::string& path, const ExportedProgram& p) {
  auto format = formatFromPath(path);
  if (!format) return Diagnostic{path, "unknown extension (use .json, .ept or .pt2)"};
  auto rendered = renderProgram(p, *format);
  if (!rendered.ok()) return Diagnostic{path, "cannot be written: " + rendered.error().str()};
  return writeFileAtomically(path, rendered.value());
}

// Note [No std::filesystem::remove_all]
// The torch 2.11.0+cu130 wheel's libtorch.so exports the std::filesystem it links statically
// (pytorch/pytorch#133437; the 2.13 CPU wheel exports none), and a binary linked against it
// binds its std::filesystem calls to that copy before libstdc++'s. The copy's remove_all
// reaches recursive_directory_iterator::__erase through a weak reference that nothing
// defines, so removing a directory that holds a file jumps to address 0: on a GPU machine
// a corpus write that lost its race to another ended the campaign so. The copy's other
// functions work; epsmith removes trees with nftw, here only.
namespace {
thread_local std::optional<Diagnostic>* g_remove_error = nullptr;

int removeEntry(const char* path, const struct stat*, int, struct FTW*) {
  if (::remove(path) != 0 && errno != ENOENT) {
    *g_remove_error = Diagnostic{path, std::string("cannot remove: ") + std::strerror(errno)};
    return 1;
  }
  return 0;
}
}  // namespace

std::optional<Diagnostic> removeTree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    return Diagnostic{path, std::string("cannot remove: ") + std::strerror(errno)};
  }
  std::optional<Diagnostic> error;
  g_remove_error = &error;
  const int rc = ::nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  g_remove_error = nullptr;
  if (rc != 0 && !error) error = Diagnostic{path, std::string("cannot remove: ") + std::strerror(errno)};
  return error;
}

}  // namespace epsmith
