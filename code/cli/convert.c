/* convert.c — `normlab convert --in M.bin --out R.bin`: chapter 12's
 * conversion of a LayerNorm GPT-2 (llm.c's layout) into an RMSNorm model
 * with the same logits, in the format code/gpt2/format.c describes. */
#include <stdio.h>

#include "commands.h"
#include "gpt2/gpt2.h"
#include "io/io.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to,
"usage: normlab convert --in M.bin --out R.bin [--crms] [--flashnorm] [--force]\n"
"\n"
"Converts a pre-norm LayerNorm GPT-2 checkpoint (llm.c's layout, version 3)\n"
"into an RMSNorm model with the same outputs: every writer of the residual\n"
"stream centred over the model dimension, each norm's gamma and beta folded\n"
"into the matrix it feeds, the head untied with a bias per token (chapter 12).\n"
"The conversion runs in double; the result is stored in float32.\n"
"\n"
"  --crms       Pre-CRMSNorm: the residual stream keeps channels - 1 values\n"
"               (Jiang et al. 2023, arXiv 2305.14858)\n"
"  --flashnorm  apply each norm's 1/rms after its matmul (FlashNorm, Graef et\n"
"               al. 2024, arXiv 2407.09577)\n"
"  --force      replace an existing output file (never done otherwise)\n"
"\n"
"normlab logits runs the result.  Exit status: 0 done; 2 bad usage or a model\n"
"the method cannot convert (named on stderr, nothing written); 1 no memory.\n");
}

static int fail(const char *what)
{
    fprintf(stderr, "normlab convert: %s\n", what);
    return 2;
}

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int crms = 0, flash = 0, force = 0;
    const nl_option opts[] = {
        {"--in", NL_OPT_TEXT, &in, 0, NULL, NULL},
        {"--out", NL_OPT_TEXT, &out, 0, NULL, NULL},
        {"--crms", NL_OPT_FLAG, &crms, 0, NULL, NULL},
        {"--flashnorm", NL_OPT_FLAG, &flash, 0, NULL, NULL},
        {"--force", NL_OPT_FLAG, &force, 0, NULL, NULL},
    };
    int code;
    if (!nl_options_parse("convert", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    if (!in || !out)
        return nl_usage_error("convert", "--in and --out are both needed");
    if (nl_output_check(out, force) != NL_OK)
        return fail(nl_last_error());

    nl_gpt2 m, md, rd, rf;
    if (nl_gpt2_read(in, &m) != NL_OK)
        return fail(nl_last_error());
    if (m.norm != NL_GPT2_LAYERNORM) {
        fprintf(stderr, "normlab convert: %s is an RMSNorm model already (%s): "
                        "there is no LayerNorm left to convert\n", in,
                m.norm == NL_GPT2_RMSNORM_GAIN ? "trained with RMSNorm" : "converted");
        nl_gpt2_free(&m);
        return 2;
    }
    nl_gpt2_convert_opts o = nl_gpt2_convert_default();
    o.norm = crms ? NL_GPT2_CRMSNORM : NL_GPT2_RMSNORM;
    o.deferred = flash;
    int rc = nl_gpt2_to_double(&m, &md);
    nl_gpt2_free(&m);
    if (rc == NL_OK) {
        rc = nl_gpt2_convert(&md, &o, &rd);
        nl_gpt2_free(&md);
    }
    if (rc == NL_OK) {
        rc = nl_gpt2_to_float(&rd, &rf);
        nl_gpt2_free(&rd);
    }
    if (rc != NL_OK) {
        fprintf(stderr, "normlab convert: %s\n", nl_last_error());
        return rc == NL_ENOMEM ? 1 : 2;
    }
    rc = nl_gpt2_write(out, &rf, force);
    if (rc == NL_OK)
        printf("%s -> %s: %s%s, layers %d, residual width %zu of %d channels, head %d x %zu "
               "with a bias, no norm parameters\n",
               in, out, crms ? "Pre-CRMSNorm" : "RMSNorm", flash ? " + FlashNorm" : "",
               rf.cfg.num_layers, rf.width, rf.cfg.channels, rf.cfg.vocab_size, rf.width);
    nl_gpt2_free(&rf);
    return rc == NL_OK ? 0 : fail(nl_last_error());
}
