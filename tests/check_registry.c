/* check_registry.c — the registry itself: names unique, every entry
 * complete, and the parameter counts of the two norms. */
#include <string.h>

#include "harness.h"

START_TEST(names_are_unique_and_entries_complete)
{
    size_t n;
    const nl_impl *all = nl_impls(&n);
    ck_assert_msg(n >= 2, "the registry lists %zu implementations; expected the naive pair at least", n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(all[i].name && all[i].fn && all[i].summary,
                      "registry entry %zu is missing its name, function or summary", i);
        ck_assert_msg(all[i].tol > 0.0, "%s states no error bound (tol = %g)", all[i].name, all[i].tol);
        ck_assert_msg(nl_find_impl(all[i].name) == &all[i],
                      "nl_find_impl(\"%s\") does not find entry %zu: is the name used twice?",
                      all[i].name, i);
    }
}
END_TEST

START_TEST(parameter_counts)
{
    const size_t widths[] = {1, 768, 1024, 4096};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        size_t d = widths[k];
        ck_assert_msg(nl_param_count(NL_LAYERNORM, d) == 2 * d,
                      "LayerNorm of width %zu has gamma and beta: expected %zu parameters, got %zu",
                      d, 2 * d, nl_param_count(NL_LAYERNORM, d));
        ck_assert_msg(nl_param_count(NL_RMSNORM, d) == d,
                      "RMSNorm of width %zu has only gamma: expected %zu parameters, got %zu",
                      d, d, nl_param_count(NL_RMSNORM, d));
    }
}
END_TEST

START_TEST(each_norm_has_an_implementation_for_huge_values)
{
    /* The course promises |x| ~ 1e20 works somewhere for both norms; the
     * numerics suite checks the claim, this checks someone makes it. */
    size_t n;
    const nl_impl *all = nl_impls(&n);
    int huge[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        if (all[i].props & NL_PROP_HUGE_OK)
            huge[all[i].norm] = 1;
    for (int norm = NL_LAYERNORM; norm <= NL_RMSNORM; norm++)
        ck_assert_msg(huge[norm],
                      "no %s implementation is registered with NL_PROP_HUGE_OK; at "
                      "least one must handle |x| ~ 1e20 (sum in double, or scale)",
                      nl_norm_name((nl_norm)norm));
}
END_TEST

START_TEST(only_layernorm_can_be_unstable)
{
    /* NL_PROP_UNSTABLE names the E[x^2]-E[x]^2 cancellation; RMSNorm
     * subtracts nothing, so the flag on an RMSNorm is a mistake. */
    size_t n;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(!(all[i].props & NL_PROP_UNSTABLE) || all[i].norm == NL_LAYERNORM,
                      "%s is an RMSNorm marked NL_PROP_UNSTABLE; RMSNorm has no "
                      "mean to cancel", all[i].name);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("registry");
    TCase *tc = tcase_create("registry");
    tcase_add_test(tc, names_are_unique_and_entries_complete);
    tcase_add_test(tc, parameter_counts);
    tcase_add_test(tc, each_norm_has_an_implementation_for_huge_values);
    tcase_add_test(tc, only_layernorm_can_be_unstable);
    suite_add_tcase(s, tc);
    return s;
}
