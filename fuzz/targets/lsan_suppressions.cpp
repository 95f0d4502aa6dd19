// LeakSanitizer's suppressions, built into every target: engines such as ClusterFuzzLite
// offer no way to hand a target a suppressions file.
//
// Note [LibTorch's leaks suppressed]
// Only leaks inside LibTorch, which comes prebuilt and uninstrumented, each explained:
// - mz_zip_reader_*: PyTorchStreamReader's constructor (caffe2/serialize/
//   inline_container.cc) starts miniz's reader and then throws on an archive it refuses,
//   never calling mz_zip_reader_end, so what miniz allocated by then is lost once per
//   refused archive: its 152-byte state (mz_zip_reader_init) and, for an archive whose
//   central directory it read, that directory's arrays (mz_zip_reader_read_central_dir,
//   64 KiB). 2.13; found by pt2_reader. epsmith reports such an archive with a located
//   error and holds nothing it could free.
extern "C" const char* __lsan_default_suppressions() { return "leak:mz_zip_reader_\n"; }
