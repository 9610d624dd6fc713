/*
 * ln_hash.h -- hash table with separate chaining (LightNet's ln_hash).
 *
 * Buckets are chains of entries; the table doubles when size exceeds
 * load_factor * capacity (0.75 by default), so lookups stay O(1) on average.
 * The table owns its keys and values when free functions are given: they are
 * called on remove, on replacement by insert, and on ln_hash_free.
 */
#ifndef LN_HASH_H
#define LN_HASH_H

#include "ln_list.h"

LN_CPPSTART

typedef struct ln_hash ln_hash;

typedef struct ln_hash_init_entry {
    void *key;
    void *value;
} ln_hash_init_entry;

ln_hash *ln_hash_create_full(ln_hash_func hash_func, ln_cmp_func cmp_func,
                             ln_free_func free_k_func, ln_free_func free_v_func,
                             int init_capacity, float load_factor);
ln_hash *ln_hash_create(ln_hash_func hash_func, ln_cmp_func cmp_func,
                        ln_free_func free_k_func, ln_free_func free_v_func);
void ln_hash_free(ln_hash *hash);
/* Fill from an array ended by an entry with key == NULL. */
void ln_hash_init_from_array(ln_hash *hash, const ln_hash_init_entry *array);
/* Insert or replace.  Returns 1 when the key was new, 0 when an entry was
 * replaced (the old key and value are freed with the free functions). */
int ln_hash_insert(ln_hash *hash, void *key, void *value);
/* The value, or NULL when absent. */
void *ln_hash_find(const ln_hash *hash, const void *key);
/* Returns LN_TRUE when found, and the stored key and value through the
 * pointers (either may be NULL). */
ln_bool ln_hash_find_extended(const ln_hash *hash, const void *key,
                              void **found_key, void **found_value);
/* Returns LN_TRUE when removed (key and value freed by the free functions). */
ln_bool ln_hash_remove(ln_hash *hash, const void *key);
int ln_hash_size(const ln_hash *hash);
int ln_hash_capacity(const ln_hash *hash);

/* Iteration in unspecified order: `ln_hash_iter it; ln_hash_iter_init(&it, h);
 * while (ln_hash_iter_next(&it, &k, &v)) ...`.  Do not insert or remove while
 * iterating. */
typedef struct ln_hash_iter {
    const ln_hash *hash;
    int bucket;
    void *entry;
} ln_hash_iter;
void ln_hash_iter_init(ln_hash_iter *iter, const ln_hash *hash);
ln_bool ln_hash_iter_next(ln_hash_iter *iter, void **key, void **value);

LN_CPPEND
#endif
