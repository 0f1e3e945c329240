CZK_TEST_ENTRY(status_names, 10)
CZK_TEST_ENTRY(rng_reproducible, 10)
CZK_TEST_ENTRY(alloc_counts, 10)
CZK_TEST_ENTRY(pool_covers_every_index_once, 30)
