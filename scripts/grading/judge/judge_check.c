/* judge_check.c — in a Check suite, a call the worker could not answer
 * fails the test that made it, with proxy.c's message. */
#include <check.h>

void nl_judge_fail(const char *msg);

void nl_judge_fail(const char *msg)
{
    ck_abort_msg("%s", msg);
}
