/* check_config_real.c — the reader on 44 config.json files nobody here
 * wrote: copied byte for byte from public repositories (provenance in
 * tests/fixtures/configs/SOURCES.md).  Every expected value below is
 * worked out from the family's modeling code, module by module, and the
 * comment on each row is that working: a value that only restates what
 * the reader printed would test nothing.
 *
 *   LN  = LayerNorm with weight and bias (2d parameters)
 *   LNw = LayerNorm with weight only (d)       RMS = RMSNorm, weight (d)
 *
 * Paths are under transformers/src/transformers/models/ unless a row says
 * "remote": then the modeling file is the checkpoint's own (trust_remote_code),
 * read in the same repository the config came from. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define REAL "tests/fixtures/configs/real/"

typedef struct {
    const char *file;
    int guessed;            /* the family is not recognised: the result must say so */
    nl_norm norm;
    int bias;               /* LayerNorm with a learned shift */
    double eps;
    const char *eps_key;    /* "" when the code's default is what runs */
    size_t hidden, layers, norms, params;
} real_t;

#define LN  NL_LAYERNORM
#define RMS NL_RMSNORM

static const real_t real[] = {
    /* t5/modeling_t5.py: encoder T5Block = self-attn + FF layer_norm (2), decoder adds cross-attn (3),
     * final_layer_norm per stack; num_layers 6, num_decoder_layers 6: 6*2 + 6*3 + 2 = 32 RMS x 512 */
    {"t5-summarization-demo", 0, RMS, 0, 1e-6, "layer_norm_epsilon", 512, 6, 32, 16384},
    /* qwen2/modeling_qwen2.py: input_layernorm + post_attention_layernorm, Qwen2Model.norm: 2L + 1 */
    {"sakura-14b-qwen2.5", 0, RMS, 0, 1e-6, "rms_norm_eps", 5120, 48, 97, 496640},
    {"qwen1.5-0.5b-chat", 0, RMS, 0, 1e-6, "rms_norm_eps", 1024, 24, 49, 50176},
    /* qwen2_vl/modeling_qwen2_vl.py, language model only (Qwen2VLDecoderLayer as Qwen2's; the vision
     * tower's norms are not the LM's): 2*28 + 1 = 57 RMS x 3584 */
    {"olmocr-qwen2-vl", 0, RMS, 0, 1e-6, "rms_norm_eps", 3584, 28, 57, 204288},
    /* falcon/modeling_falcon.py FalconDecoderLayer: new_decoder_architecture true and no
     * num_ln_in_parallel_attn -> 2 -> ln_attn + ln_mlp; ln_f: 2*80 + 1 = 161 LN x 14848 */
    {"falcon-180b-chat", 0, LN, 1, 1e-5, "layer_norm_epsilon", 14848, 80, 161, 4781056},
    /* remote modelling_RW.py of falcon-40b: DecoderLayer builds ln_attn and ln_mlp, RWModel.ln_f;
     * model_type RefinedWeb resolved through architectures RWForCausalLM: 2*60 + 1 = 121 LN x 8192 */
    {"falcon-40b-refinedweb", 0, LN, 1, 1e-5, "layer_norm_epsilon", 8192, 60, 121, 1982464},
    /* FalconDecoderLayer: parallel_attn, old layout -> one input_layernorm; ln_f: 32 + 1 = 33 LN x 4544 */
    {"falcon-7b-instruct", 0, LN, 1, 1e-5, "layer_norm_epsilon", 4544, 32, 33, 299904},
    /* phi3/modeling_phi3.py: input_layernorm + post_attention_layernorm, norm: 2*32 + 1 = 65 RMS x 3072 */
    {"phi-3-mini-keyformer", 0, RMS, 0, 1e-5, "rms_norm_eps", 3072, 32, 65, 199680},
    {"phi3-3b-slerp", 0, RMS, 0, 1e-5, "rms_norm_eps", 3072, 32, 65, 199680},
    /* gpt_bigcode/modeling_gpt_bigcode.py GPTBigCodeBlock: ln_1, ln_2 (ln_cross_attn only with
     * add_cross_attention), ln_f: 2*40 + 1 = 81 LN x 6144 */
    {"wizardcoder-15b", 0, LN, 1, 1e-5, "layer_norm_epsilon", 6144, 40, 81, 995328},
    /* gemma2/modeling_gemma2.py: input, post_attention, pre_feedforward, post_feedforward layernorms,
     * norm: 4*26 + 1 = 105 RMS (1 + w, still d parameters) x 2304 */
    {"gemma2-2b-poem", 0, RMS, 0, 1e-6, "rms_norm_eps", 2304, 26, 105, 241920},
    /* llama/modeling_llama.py: input_layernorm + post_attention_layernorm, norm: 2L + 1 */
    {"llama-2-7b-hf", 0, RMS, 0, 1e-5, "rms_norm_eps", 4096, 32, 65, 266240},
    {"granite-3b-code-128k", 0, RMS, 0, 1e-5, "rms_norm_eps", 2560, 32, 65, 166400},
    {"internlm-20b", 0, RMS, 0, 1e-6, "rms_norm_eps", 5120, 60, 121, 619520},
    {"tensor-12m", 0, RMS, 0, 1e-6, "rms_norm_eps", 384, 4, 9, 3456},
    {"orpheus-3b", 0, RMS, 0, 1e-5, "rms_norm_eps", 3072, 28, 57, 175104},
    /* gemma3/modeling_gemma3.py, text_config (gemma3_text): 4 per layer as Gemma-2 plus q_norm and
     * k_norm over head_dim 128; norm: 62 layers * 6 + 1 = 373; 62*(4*5376 + 2*128) + 5376 */
    {"medgemma-27b-it", 0, RMS, 0, 1e-6, "text_config.rms_norm_eps", 5376, 62, 373, 1354496},
    /* mixtral/modeling_mixtral.py: input_layernorm + post_attention_layernorm, norm: 2L + 1 */
    {"mixtral-dolphin-2.5", 0, RMS, 0, 1e-5, "rms_norm_eps", 4096, 32, 65, 266240},
    {"wizardlm-2-8x22b", 0, RMS, 0, 1e-5, "rms_norm_eps", 6144, 56, 113, 694272},
    /* gptj/modeling_gptj.py GPTJBlock: one ln_1 (parallel attention and MLP), ln_f: 28 + 1 = 29 LN x 4096 */
    {"dolly-v1-6b", 0, LN, 1, 1e-5, "layer_norm_epsilon", 4096, 28, 29, 237568},
    /* bloom/modeling_bloom.py: word_embeddings_layernorm, input_layernorm + post_attention_layernorm,
     * ln_f: 2*70 + 2 = 142 LN x 14336 */
    {"bloom-176b", 0, LN, 1, 1e-5, "layer_norm_epsilon", 14336, 70, 142, 4071424},
    /* exaone4/modeling_exaone4.py Exaone4DecoderLayer: no norm before attention or MLP; post_attention_layernorm
     * and post_feedforward_layernorm on their outputs, q_norm and k_norm of head_dim 64, Exaone4Model.norm:
     * 2*30 + 1 = 61 RMS x 2048 + 2*30 RMS x 64 = 121 norms, 124928 + 3840 = 128768 */
    {"exaone-4.0-1.2b-w4a16", 0, RMS, 0, 1e-5, "rms_norm_eps", 2048, 30, 121, 128768},
    /* remote modeling_codegen.py (its auto_map; the same layout as transformers' codegen/modeling_codegen.py):
     * CodeGenBlock's one ln_1 (parallel attention and MLP), ln_f: 16 + 1 = 17 LN x 2048 */
    {"codegen2-1b", 0, LN, 1, 1e-5, "layer_norm_epsilon", 2048, 16, 17, 69632},
    /* gemma/modeling_gemma.py: 2 per layer + norm: 2*18 + 1 = 37 RMS x 2048 */
    {"gemma-2b", 0, RMS, 0, 1e-6, "rms_norm_eps", 2048, 18, 37, 75776},
    /* remote modeling_mixformer_sequential.py (phi-1.5, phi-2 before transformers' Phi):
     * ParallelBlock.ln, CausalLMHead.ln: L + 1 LN; the key is layer_norm_epsilon, not Phi's layer_norm_eps */
    {"phi-2-mixformer", 0, LN, 1, 1e-5, "layer_norm_epsilon", 2560, 32, 33, 168960},
    {"phi-1_5-mixformer", 0, LN, 1, 1e-5, "layer_norm_epsilon", 2048, 24, 25, 102400},
    {"phi-1_5-myphi", 0, LN, 1, 1e-5, "layer_norm_epsilon", 2048, 24, 25, 102400},
    /* gpt_neox/modeling_gpt_neox.py: input_layernorm + post_attention_layernorm (both built, parallel
     * residual or not), final_layer_norm: 2L + 1 LN */
    {"redpajama-incite-7b", 0, LN, 1, 1e-5, "layer_norm_eps", 4096, 32, 65, 532480},
    {"pythia-410m-chatbot", 0, LN, 1, 1e-5, "layer_norm_eps", 1024, 24, 49, 100352},
    /* mistral/modeling_mistral.py: 2L + 1 */
    {"devstral-small-2507", 0, RMS, 0, 1e-5, "rms_norm_eps", 5120, 40, 81, 414720},
    /* remote modeling_chatglm.py of chatglm-6b: GLMBlock input_layernorm + post_attention_layernorm and
     * final_layernorm, all LayerNorm (no rmsnorm switch in v1): 2*28 + 1 = 57 LN x 4096 */
    {"chatglm-6b", 0, LN, 1, 1e-5, "layernorm_epsilon", 4096, 28, 57, 466944},
    /* remote modeling_chatglm.py of chatglm2-6b: LayerNormFunc = RMSNorm if config.rmsnorm;
     * post_layer_norm -> final_layernorm: 57 RMS x 4096 */
    {"chatglm2-6b", 0, RMS, 0, 1e-5, "layernorm_epsilon", 4096, 28, 57, 233472},
    {"codegeex2-6b", 0, RMS, 0, 1e-5, "layernorm_epsilon", 4096, 28, 57, 233472},
    /* deepseek_v3/modeling_deepseek_v3.py: 2 per layer, q_a_layernorm (q_lora_rank 1536) and
     * kv_a_layernorm (kv_lora_rank 512) in every attention, norm: 61*4 + 1 = 245;
     * 61*(2*7168 + 1536 + 512) + 7168 */
    {"deepseek-r1", 0, RMS, 0, 1e-6, "rms_norm_eps", 7168, 61, 245, 1006592},
    /* granitemoe/modeling_granitemoe.py: input_layernorm + post_attention_layernorm, norm: 2L + 1 */
    {"granite-3.1-1b-a400m", 0, RMS, 0, 1e-6, "rms_norm_eps", 1024, 24, 49, 50176},
    /* remote blocks.py / modeling_mpt.py of replit-code (MosaicML): MPTBlock norm_1, norm_2 (mptmlp has
     * no norm of its own), MPTModel.norm_f; norm_type low_precision_layernorm; no_bias drops every bias,
     * the norms' too; no eps key: LPLayerNorm's 1e-5.  2*32 + 1 = 65 LNw x 3072 */
    {"replit-code-mpt", 0, LN, 0, 1e-5, "", 3072, 32, 65, 199680},
    /* remote modeling_qwen.py (Qwen v1): QWenBlock ln_1, ln_2 are RMSNorm, read layer_norm_epsilon;
     * ln_f: 2L + 1 RMS */
    {"qwen-7b-chat-cantonese", 0, RMS, 0, 1e-6, "layer_norm_epsilon", 4096, 32, 65, 266240},
    {"qwen-72b", 0, RMS, 0, 1e-6, "layer_norm_epsilon", 8192, 80, 161, 1318912},
    /* bert/modeling_bert.py, no model_type in the file (architectures BertForSequenceClassification):
     * embeddings.LayerNorm, per layer attention.output.LayerNorm + output.LayerNorm, no final:
     * 2*12 + 1 = 25 LN x 768 */
    {"bert-base-uncased-cls", 0, LN, 1, 1e-12, "layer_norm_eps", 768, 12, 25, 38400},
    /* qwen3_vl/modeling_qwen3_vl.py, text_config (qwen3_vl_text): 2 per layer, Qwen3VLTextAttention
     * q_norm + k_norm over head_dim 128, norm: 36*4 + 1 = 145; 36*(2*4096 + 2*128) + 4096 */
    {"cosmos-reason2-qwen3-vl", 0, RMS, 0, 1e-6, "text_config.rms_norm_eps", 4096, 36, 145, 308224},
    /* remote modeling_mimo.py: Qwen2Model (2L + 1) plus num_nextn_predict_layers (1) MiMoMTPLayers with
     * input, post_attention, token, hidden and final layernorms: 73 + 5 = 78 RMS x 4096 */
    {"mimo-7b", 0, RMS, 0, 1e-5, "rms_norm_eps", 4096, 36, 78, 319488},
    /* remote modeling_openpangu_dense.py: PanguEmbeddedDecoderLayer input + post_attention RMSNorm,
     * PanguEmbeddedModel.norm (the config's bias: true is the q/k/v/o projections'): 2*34 + 1 = 69 */
    {"openpangu-embedded-7b", 0, RMS, 0, 1e-5, "rms_norm_eps", 4096, 34, 69, 282624},
    /* Not recognised, so a guess, said: minicpmv (MiniCPM-V; its modeling file is not in the copy, so
     * the count is the guess, 2L + 1, not a derived value). */
    {"minicpm-v", 1, RMS, 0, 1e-5, "rms_norm_eps", 2304, 40, 81, 186624},
    /* qwen3_5_moe/modeling_qwen3_5_moe.py (the census row): input_layernorm + post_attention_layernorm in
     * all 40 layers, norm: 81 x 2048; layer_types has 30 linear_attention layers, each with a gated
     * linear_attn.norm of linear_value_head_dim 128, and 10 full_attention layers with q_norm and k_norm
     * of head_dim 256: 81 + 30 + 20 = 131; 81*2048 + 30*128 + 20*256 = 174848 */
    {"qwen3.5-18b-reap", 0, RMS, 0, 1e-6, "rms_norm_eps", 2048, 40, 131, 174848},
};

START_TEST(each_real_config)
{
    const real_t *w = &real[_i];
    char path[256];
    snprintf(path, sizeof path, REAL "%s.json", w->file);
    nl_config c;
    ck_assert_msg(nl_config_read(path, &c) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(c.guessed == w->guessed, "%s: guessed is %d, expected %d (family '%s'; note: %s)", w->file,
                  c.guessed, w->guessed, c.family, c.note ? c.note : "");
    ck_assert_msg(c.shape.norm == w->norm && (c.shape.bias && c.shape.norm == NL_LAYERNORM) == w->bias,
                  "%s: %s %s a bias, expected %s %s (family %s; note: %s)", w->file, nl_norm_name(c.shape.norm),
                  c.shape.bias ? "with" : "without", nl_norm_name(w->norm), w->bias ? "with" : "without",
                  c.family, c.note ? c.note : "");
    ck_assert_msg(c.eps == w->eps && strcmp(c.eps_key, w->eps_key) == 0,
                  "%s: eps %g from '%s', expected %g from '%s' (the key the family's code reads; "
                  "\"\" = its default)", w->file, c.eps, c.eps_key, w->eps, w->eps_key);
    ck_assert_msg(c.hidden_size == w->hidden && c.num_layers == w->layers,
                  "%s: width %zu, %zu layers; expected %zu and %zu", w->file, c.hidden_size, c.num_layers,
                  w->hidden, w->layers);
    ck_assert_msg(c.norm_layers == w->norms && c.norm_params == w->params,
                  "%s: %zu norm layers with %zu parameters; expected %zu with %zu (the textbook 2L + 1 "
                  "would say %zu).  Note: %s", w->file, c.norm_layers, c.norm_params, w->norms, w->params,
                  2 * c.num_layers + 1, c.note ? c.note : "");
    if (w->guessed)
        ck_assert_msg(c.note && strstr(c.note, "guess") && strstr(c.note, "assumed"),
                      "%s: a guess must say what it assumed; the note says: %s", w->file, c.note);
    nl_config_free(&c);
}
END_TEST

/* What the notes must say where the structure came from the fields. */
START_TEST(how_it_was_recognised)
{
    static const struct { const char *file, *says; } want[] = {
        {"falcon-40b-refinedweb", "architectures (RWForCausalLM)"},
        {"phi-2-mixformer", "architectures (MixFormerSequentialForCausalLM)"},
        {"bert-base-uncased-cls", "no model_type; its architectures (BertForSequenceClassification)"},
        {"chatglm2-6b", "rmsnorm: true"},
        {"chatglm-6b", "no rmsnorm switch"},
        {"falcon-180b-chat", "new_decoder_architecture=true: counted as the census's build"},
        {"mimo-7b", "multi-token-prediction"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, REAL "%s.json", want[i].file);
        nl_config c;
        ck_assert_msg(nl_config_read(path, &c) == NL_OK, "%s", nl_last_error());
        ck_assert_msg(c.note && strstr(c.note, want[i].says), "%s: the note should say \"%s\"; it says: %s",
                      want[i].file, want[i].says, c.note ? c.note : "");
        nl_config_free(&c);
    }
}
END_TEST

/* Config switches decide, and mixers with norms of their own are counted
 * from the fields that size them.  params 0: not checked. */
START_TEST(fields_decide)
{
    static const struct { const char *json, *why; nl_norm norm; size_t per_block, norms, params; } cases[] = {
        {"{\"model_type\":\"falcon\",\"hidden_size\":64,\"num_hidden_layers\":4,"
         "\"new_decoder_architecture\":true,\"num_ln_in_parallel_attn\":1}",
         "Falcon's new decoder with num_ln_in_parallel_attn 1: one input_layernorm", LN, 1, 5, 0},
        {"{\"model_type\":\"chatglm\",\"hidden_size\":64,\"num_layers\":4,\"rmsnorm\":true,"
         "\"post_layer_norm\":false}", "ChatGLM without a final norm", RMS, 2, 8, 0},
        {"{\"model_type\":\"mpt\",\"d_model\":64,\"n_layers\":4,\"norm_type\":\"low_precision_rmsnorm\","
         "\"auto_map\":{\"AutoModelForCausalLM\":\"modeling_mpt.MPTForCausalLM\"}}",
         "MPT with norm_type low_precision_rmsnorm", RMS, 2, 9, 0},
        {"{\"model_type\":\"kimi_k2\",\"hidden_size\":64,\"num_hidden_layers\":4,\"q_lora_rank\":16,"
         "\"kv_lora_rank\":8,\"rms_norm_eps\":1e-6}", "an unknown model_type with MLA fields is DeepSeek's layout",
         RMS, 4, 17, 0},
        /* jamba/modeling_jamba.py with JambaConfig's layout: attention where i % 8 == 4, 28 Mamba
         * layers; 2 per layer (32 * 2), dt/B/C norms per Mamba mixer (28 * 3), final: 149;
         * 64 * 4096 + 28 * (256 + 16 + 16) + 4096 */
        {"{\"model_type\":\"jamba\",\"hidden_size\":4096,\"num_hidden_layers\":32,\"attn_layer_period\":8,"
         "\"attn_layer_offset\":4,\"mamba_d_state\":16,\"mamba_dt_rank\":\"auto\",\"rms_norm_eps\":1e-6}",
         "Jamba: 28 Mamba mixers with dt (ceil(4096 / 16) = 256), B and C (16) norms", RMS, 5, 149, 274304},
        /* mamba2/modeling_mamba2.py: Mamba2Block.norm (768), Mamba2Mixer.norm gated over
         * int(expand * hidden) = 1536, norm_f: 24 + 24 + 1 = 49; 24 * 768 + 24 * 1536 + 768 */
        {"{\"model_type\":\"mamba2\",\"hidden_size\":768,\"num_hidden_layers\":24,\"expand\":2,"
         "\"layer_norm_epsilon\":1e-5}", "Mamba-2: a gated norm twice the width in every mixer", RMS, 2, 49, 56064},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nl_config c;
        ck_assert_msg(nl_config_parse(cases[i].json, strlen(cases[i].json), "inline.json", &c) == NL_OK,
                      "%s", nl_last_error());
        ck_assert_msg(c.shape.norm == cases[i].norm && c.norms_per_layer == cases[i].per_block &&
                          c.norm_layers == cases[i].norms && !c.guessed &&
                          (cases[i].params == 0 || c.norm_params == cases[i].params),
                      "%s: expected %s, %zu per block, %zu in all (%zu parameters), recognised; got %s, %zu, "
                      "%zu (%zu), guessed %d\n  config: %s\n  note: %s", cases[i].why, nl_norm_name(cases[i].norm),
                      cases[i].per_block, cases[i].norms, cases[i].params, nl_norm_name(c.shape.norm),
                      c.norms_per_layer, c.norm_layers, c.norm_params, c.guessed, cases[i].json,
                      c.note ? c.note : "");
        nl_config_free(&c);
    }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("config_real");
    TCase *tc = tcase_create("real");
    tcase_add_loop_test(tc, each_real_config, 0, sizeof real / sizeof real[0]);
    tcase_add_test(tc, how_it_was_recognised);
    tcase_add_test(tc, fields_decide);
    suite_add_tcase(s, tc);
    return s;
}
