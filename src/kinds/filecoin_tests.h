CZK_TEST_ENTRY(filecoin_post_2k_prove, 600)
CZK_TEST_ENTRY(filecoin_post_missing_key, 30)
CZK_TEST_ENTRY(filecoin_post_bad_payloads, 30)
CZK_TEST_ENTRY(filecoin_post_repeated_on_cpu, 120)
