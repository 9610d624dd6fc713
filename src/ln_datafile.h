/*
 * ln_datafile.h -- weights files: name -> tensor dictionaries on disk.
 *
 * .params is the CVM/TVM NDArray parameter dictionary, little endian:
 *   u64 magic 0xF7E58D4F05049CB7, u64 reserved, u64 key count, per key
 *   (u64 length, bytes); u64 value count, per value: u64 magic
 *   0xDD5E40F096B4A13F, u64 reserved, i32 device_type, i32 device_id,
 *   i32 ndim, u8 dtype code (0 int, 1 uint, 2 float), u8 bits, u16 lanes,
 *   i64 shape[ndim], i64 byte size, data.
 * .wts is LightNet's older text format (read only).
 *
 * Readers check every length against the file size, so a truncated or
 * corrupt file gives LN_EPARSE with the file name, the tensor and the byte
 * offset, never a crash.
 */
#ifndef LN_DATAFILE_H
#define LN_DATAFILE_H

#include "ln_tensor.h"

LN_CPPSTART

/* A hash of char* name -> ln_tensor* (both owned by the hash). */
ln_hash *ln_datafile_create_dict(void);
/* By extension: ".wts" reads text, anything else .params. */
int ln_datafile_read(const char *path, ln_hash **dict);
int ln_datafile_read_params(const char *path, ln_hash **dict);
int ln_datafile_read_params_mem(const void *buf, size_t len,
                                const char *name_for_errors, ln_hash **dict);
int ln_datafile_read_wts(const char *path, ln_hash **dict);
int ln_datafile_read_wts_mem(const void *buf, size_t len, const char *name_for_errors,
                             ln_hash **dict);
/* Write tensors (names[i], tensors[i]) in .params format.  Written to a
 * temporary file and renamed, so a failure leaves no partial file. */
int ln_datafile_write_params(const char *path, int n, const char *const *names,
                             const ln_tensor *const *tensors);
/* Convenience: the whole dict, names sorted. */
int ln_datafile_write_params_dict(const char *path, const ln_hash *dict);

LN_CPPEND
#endif
