CZK_TEST_ENTRY(post_public_reads_curio_json, 10)
CZK_TEST_ENTRY(post_public_round_trips, 10)
CZK_TEST_ENTRY(post_public_refuses_bad_fields, 10)
