/* Unit tests of src/filecoin/porep.c and porep_types.c (see tests/test_list.h). */
CZK_TEST_ENTRY(porep_types_table, 10)
CZK_TEST_ENTRY(porep_counts_digest_2k, 120)
CZK_TEST_ENTRY(porep_counts_8m_512m, 120)
CZK_TEST_ENTRY(porep_counts_32g, 600)
CZK_TEST_ENTRY(porep_counts_64g, 600)
CZK_TEST_ENTRY(porep_2k_sealed_satisfied, 120)
CZK_TEST_ENTRY(porep_2k_tampered_refused, 120)
CZK_TEST_ENTRY(porep_virtual_32g_one_challenge, 120)
