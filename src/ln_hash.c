/*
 * ln_hash.c -- hash table with separate chaining.
 *
 * Each bucket is a chain of entries that remember their full hash, so a
 * resize rehashes without calling hash_func again.  The capacity is a power
 * of two (the bucket is hash & (capacity - 1)); it starts at 16 unless told
 * otherwise and doubles as soon as size exceeds load_factor * capacity.  The
 * table never shrinks.  With free functions the table owns its keys and
 * values: they are freed on remove, on replacement and by ln_hash_free.
 */
#include <assert.h>

#include "ln_hash.h"

#define LN_HASH_DEFAULT_CAPACITY 16
#define LN_HASH_DEFAULT_LOAD_FACTOR 0.75f

typedef struct ln_hash_entry ln_hash_entry;
struct ln_hash_entry {
    void *key;
    void *value;
    uint32_t hash;
    ln_hash_entry *next;
};

struct ln_hash {
    ln_hash_func hash_func;
    ln_cmp_func cmp_func;
    ln_free_func free_k_func;
    ln_free_func free_v_func;
    int capacity;       /* a power of two */
    int size;
    float load_factor;
    ln_hash_entry **buckets;
};

/* NULL hash or compare functions mean keys compared as pointers. */
ln_hash *ln_hash_create_full(ln_hash_func hash_func, ln_cmp_func cmp_func,
                             ln_free_func free_k_func, ln_free_func free_v_func,
                             int init_capacity, float load_factor)
{
    ln_hash *h = ln_alloc(sizeof(*h));
    int cap = 1;

    if (init_capacity <= 0)
        init_capacity = LN_HASH_DEFAULT_CAPACITY;
    while (cap < init_capacity && cap < (1 << 30))
        cap *= 2;
    h->hash_func = hash_func ? hash_func : ln_direct_hash;
    h->cmp_func = cmp_func ? cmp_func : ln_direct_cmp;
    h->free_k_func = free_k_func;
    h->free_v_func = free_v_func;
    h->capacity = cap;
    h->size = 0;
    h->load_factor = load_factor > 0 ? load_factor : LN_HASH_DEFAULT_LOAD_FACTOR;
    h->buckets = ln_alloc(sizeof(*h->buckets) * (size_t)cap);
    return h;
}

ln_hash *ln_hash_create(ln_hash_func hash_func, ln_cmp_func cmp_func,
                        ln_free_func free_k_func, ln_free_func free_v_func)
{
    return ln_hash_create_full(hash_func, cmp_func, free_k_func, free_v_func,
                               LN_HASH_DEFAULT_CAPACITY,
                               LN_HASH_DEFAULT_LOAD_FACTOR);
}

static void ln_hash_free_entry(ln_hash *hash, ln_hash_entry *e)
{
    if (hash->free_k_func)
        hash->free_k_func(e->key);
    if (hash->free_v_func)
        hash->free_v_func(e->value);
    ln_free(e);
}

void ln_hash_free(ln_hash *hash)
{
    ln_hash_entry *e, *next;
    int i;

    if (!hash)
        return;
    for (i = 0; i < hash->capacity; i++) {
        for (e = hash->buckets[i]; e; e = next) {
            next = e->next;
            ln_hash_free_entry(hash, e);
        }
    }
    ln_free(hash->buckets);
    ln_free(hash);
}

void ln_hash_init_from_array(ln_hash *hash, const ln_hash_init_entry *array)
{
    for (; array->key; array++)
        ln_hash_insert(hash, array->key, array->value);
}

/* The link that points at key's entry, or at the NULL ending its chain. */
static ln_hash_entry **ln_hash_lookup(const ln_hash *hash, const void *key,
                                      uint32_t hv)
{
    ln_hash_entry **link = &hash->buckets[hv & (uint32_t)(hash->capacity - 1)];

    for (; *link; link = &(*link)->next) {
        if ((*link)->hash == hv && hash->cmp_func(key, (*link)->key) == 0)
            break;
    }
    return link;
}

static void ln_hash_grow(ln_hash *hash)
{
    int new_cap = hash->capacity * 2, i;
    ln_hash_entry **nb = ln_alloc(sizeof(*nb) * (size_t)new_cap);
    ln_hash_entry *e, *next;
    uint32_t b;

    for (i = 0; i < hash->capacity; i++) {
        for (e = hash->buckets[i]; e; e = next) {
            next = e->next;
            b = e->hash & (uint32_t)(new_cap - 1);
            e->next = nb[b];
            nb[b] = e;
        }
    }
    ln_free(hash->buckets);
    hash->buckets = nb;
    hash->capacity = new_cap;
}

/* On replacement the stored key gives way to the new one; an old key or value
 * that is the very pointer being stored again is not freed. */
int ln_hash_insert(ln_hash *hash, void *key, void *value)
{
    uint32_t hv = hash->hash_func(key);
    ln_hash_entry **link = ln_hash_lookup(hash, key, hv);
    ln_hash_entry *e = *link;

    if (e) {
        if (hash->free_k_func && e->key != key)
            hash->free_k_func(e->key);
        if (hash->free_v_func && e->value != value)
            hash->free_v_func(e->value);
        e->key = key;
        e->value = value;
        return 0;
    }
    e = ln_alloc(sizeof(*e));
    e->key = key;
    e->value = value;
    e->hash = hv;
    *link = e; /* end of the chain */
    hash->size++;
    if ((float)hash->size > hash->load_factor * (float)hash->capacity)
        ln_hash_grow(hash);
    return 1;
}

void *ln_hash_find(const ln_hash *hash, const void *key)
{
    void *value = NULL;

    ln_hash_find_extended(hash, key, NULL, &value);
    return value;
}

ln_bool ln_hash_find_extended(const ln_hash *hash, const void *key,
                              void **found_key, void **found_value)
{
    ln_hash_entry *e = *ln_hash_lookup(hash, key, hash->hash_func(key));

    if (!e)
        return LN_FALSE;
    if (found_key)
        *found_key = e->key;
    if (found_value)
        *found_value = e->value;
    return LN_TRUE;
}

ln_bool ln_hash_remove(ln_hash *hash, const void *key)
{
    ln_hash_entry **link = ln_hash_lookup(hash, key, hash->hash_func(key));
    ln_hash_entry *e = *link;

    if (!e)
        return LN_FALSE;
    *link = e->next;
    hash->size--;
    ln_hash_free_entry(hash, e);
    return LN_TRUE;
}

int ln_hash_size(const ln_hash *hash)
{
    return hash->size;
}

int ln_hash_capacity(const ln_hash *hash)
{
    return hash->capacity;
}

/* iter->entry is the next entry to hand out; iter->bucket the next bucket to
 * look in once the current chain is used up. */
void ln_hash_iter_init(ln_hash_iter *iter, const ln_hash *hash)
{
    iter->hash = hash;
    iter->bucket = 0;
    iter->entry = NULL;
}

ln_bool ln_hash_iter_next(ln_hash_iter *iter, void **key, void **value)
{
    ln_hash_entry *e = iter->entry;

    while (!e && iter->bucket < iter->hash->capacity)
        e = iter->hash->buckets[iter->bucket++];
    if (!e)
        return LN_FALSE;
    if (key)
        *key = e->key;
    if (value)
        *value = e->value;
    iter->entry = e->next;
    return LN_TRUE;
}
