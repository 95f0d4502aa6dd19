// Program files on disk: the format chosen by extension (.json: torch.export JSON with the
// epsmith section; .ept: the text form; .pt2: torch.export.save's archive), located errors
// prefixed with the file name, and atomic writes (temporary file + rename) so an
// interrupted write never leaves half a file. (Here, above formats/, because a .pt2 is
// read with LibTorch's zip reader and pickler.)
#pragma once

#include <optional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

enum class FileFormat { Json, Text, Pt2 };

// .json → Json; .ept and .txt → Text; .pt2 → Pt2; anything else → nullopt.
std::optional<FileFormat> formatFromPath(const std::string& path);

// Reads and parses `path`. A file with an unknown extension is read as a .pt2 when it starts
// as a zip file does, as JSON when its first significant character is '{', else as text. Errors name the file: `path:3:16` or
// `path: $.exported_program...`.
Expected<ExportedProgram> loadProgram(const std::string& path);
Expected<ExportedProgram> parseProgram(const std::string& contents, FileFormat format, const std::string& name);

Expected<std::string> renderProgram(const ExportedProgram& p, FileFormat format);

// The bytes of the file `path`; an error naming it when it is a directory or cannot be
// opened or read.
Expected<std::string> readFileBytes(const std::string& path);
// Writes `contents` to `path` atomically. Returns the error, or nullopt.
std::optional<Diagnostic> writeFileAtomically(const std::string& path, const std::string& contents);
// Renders in the format of `path`'s extension and writes atomically.
std::optional<Diagnostic> saveProgram(const std::string& path, const ExportedProgram& p);

// Removes `path` and everything under it, following no symbolic link; a path that does not
// exist is no error. Returns the first error, or nullopt. epsmith's one way to remove a
// directory tree (Note [No std::filesystem::remove_all]).
std::optional<Diagnostic> removeTree(const std::string& path);

}  // namespace epsmith
