// The C interface of libinfergap_imgcodecs.so (inputs/imgcodecs/module.cpp), which
// inputs/image_codec.cpp loads on first use. Plain C types only: the module links no infergap code.
#pragma once

extern "C" {
// Decodes `path` to 8-bit pixels, rows of `cols` x `channels` bytes (3: BGR, 1: grey): a buffer to
// free with infergap_image_free, or null with the reason in `err`.
unsigned char* infergap_image_read(const char* path, int channels, int* rows, int* cols, char* err,
                                   unsigned long err_len);
// Writes BGR pixels as a JPEG of `quality`; 0 when written, else the reason in `err`.
int infergap_image_write_jpeg(const char* path, const unsigned char* bgr, int rows, int cols,
                              int quality, char* err, unsigned long err_len);
void infergap_image_free(unsigned char* pixels);
}
