/* check_prose.c — the book is written as book/STYLE.md says: the checks
 * marked *checked* there, with the patterns and budgets of
 * book/prose-rules.txt.
 *
 * The checker reads a tree (chapters/, appendices/, notebook/, exercises/,
 * book/prose-rules.txt, book/data/) from any root, so each rule is tested
 * on a crafted chapter in a scratch folder, once failing and once passing,
 * and then every rule runs on this repository's own book. Every problem
 * is one line "FILE:LINE: RULE: what is wrong". */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

/* ------------------------------------------------------------ the rules */

#define MAX_WORDS 32
#define MAX_BUDGETS 100

typedef struct {
    char name[40];
    char folders[96];   /* comma-separated: chapters,appendices,notebook */
    char pattern[512];
    regex_t re;
} word_rule;

typedef struct {
    char github[512];
    word_rule words[MAX_WORDS];
    int nwords;
    int commit_min, commit_max;
    char data_folders[96], data_dir[128];
    int budget[MAX_BUDGETS];   /* -1: none */
    int total;
    double ratio;
    int listing_max, listing_rows;
    char listing_cmd[128];
} rules;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* The next space-separated word of *s (NUL-terminated in place). */
static char *word_of(char **s)
{
    char *w = *s;
    while (*w == ' ' || *w == '\t')
        w++;
    char *e = w;
    while (*e && *e != ' ' && *e != '\t')
        e++;
    if (*e)
        *e++ = '\0';
    *s = e;
    return w;
}

static void rules_free(rules *r)
{
    for (int i = 0; i < r->nwords; i++)
        regfree(&r->words[i].re);
    r->nwords = 0;
}

/* Reads ROOT/book/prose-rules.txt; on failure writes why into err. */
static int rules_load(const char *root, rules *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < MAX_BUDGETS; i++)
        r->budget[i] = -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/book/prose-rules.txt", root);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%.512s: %s", path, strerror(errno));
        return -1;
    }
    char line[2048];
    int lineno = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *kind = word_of(&s);
        if (!strcmp(kind, "github-line")) {
            snprintf(r->github, sizeof r->github, "%s", trim(s));
        } else if (!strcmp(kind, "word")) {
            char *name = word_of(&s), *folders = word_of(&s), *pattern = trim(s);
            int k = 0;
            while (k < r->nwords && strcmp(r->words[k].name, name))
                k++;
            if (k == r->nwords) {
                if (k == MAX_WORDS) {
                    snprintf(err, errlen, "%.512s:%d: more than %d word rules", path, lineno, MAX_WORDS);
                    bad = 1;
                    break;
                }
                r->nwords++;
            } else {
                regfree(&r->words[k].re);
            }
            word_rule *w = &r->words[k];
            snprintf(w->name, sizeof w->name, "%s", name);
            snprintf(w->folders, sizeof w->folders, "%s", folders);
            snprintf(w->pattern, sizeof w->pattern, "%s", pattern);
            int rc = regcomp(&w->re, pattern, REG_EXTENDED | REG_ICASE | REG_NEWLINE);
            if (rc != 0 || !*pattern) {
                char why[256] = "empty pattern";
                if (rc != 0)
                    regerror(rc, &w->re, why, sizeof why);
                snprintf(err, errlen, "%.512s:%d: word %.40s: %.256s", path, lineno, name, why);
                if (rc == 0)
                    regfree(&w->re);
                r->nwords--;
                bad = 1;
            }
        } else if (!strcmp(kind, "commit")) {
            bad = sscanf(s, "%d %d", &r->commit_min, &r->commit_max) != 2;
        } else if (!strcmp(kind, "data")) {
            snprintf(r->data_folders, sizeof r->data_folders, "%s", word_of(&s));
            snprintf(r->data_dir, sizeof r->data_dir, "%s", word_of(&s));
            bad = !r->data_dir[0];
        } else if (!strcmp(kind, "budget")) {
            int n, lines;
            bad = sscanf(s, "%d %d", &n, &lines) != 2 || n < 0 || n >= MAX_BUDGETS;
            if (!bad)
                r->budget[n] = lines;
        } else if (!strcmp(kind, "total")) {
            bad = sscanf(s, "%d", &r->total) != 1;
        } else if (!strcmp(kind, "ratio")) {
            bad = sscanf(s, "%lf", &r->ratio) != 1;
        } else if (!strcmp(kind, "listing")) {
            int used = 0;
            bad = sscanf(s, "%d %d %n", &r->listing_max, &r->listing_rows, &used) != 2;
            if (!bad)
                snprintf(r->listing_cmd, sizeof r->listing_cmd, "%s", trim(s + used));
        } else {
            snprintf(err, errlen, "%.512s:%d: unknown kind of rule '%.40s'", path, lineno, kind);
            bad = 1;
            break;
        }
        if (bad && !err[0])
            snprintf(err, errlen, "%.512s:%d: cannot read this %.40s rule", path, lineno, kind);
    }
    fclose(f);
    if (!bad && (!r->github[0] || r->commit_min < 1 || !r->total || r->ratio <= 0 ||
                 !r->listing_cmd[0])) {
        snprintf(err, errlen, "%.512s: github-line, commit, total, ratio and listing are all needed", path);
        bad = 1;
    }
    if (bad)
        rules_free(r);
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------ problems */

typedef struct {
    char *text;
    size_t len, cap;
    int count;
} report;

static void problem(report *rep, const char *file, long line, const char *rule, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char head[400];
    int n = snprintf(head, sizeof head, "%s:%ld: %s: ", file, line, rule);
    size_t need = (size_t)n + strlen(msg) + 2;
    if (rep->len + need > rep->cap) {
        rep->cap = (rep->len + need) * 2;
        rep->text = realloc(rep->text, rep->cap);
        ck_assert_msg(rep->text != NULL, "out of memory for the report");
    }
    rep->len += (size_t)sprintf(rep->text + rep->len, "%s%s\n", head, msg);
    rep->count++;
}

static void report_free(report *rep)
{
    free(rep->text);
    memset(rep, 0, sizeof *rep);
}

/* --------------------------------------------------------- the Markdown */

/* One line of a Markdown file, as the checks see it. */
typedef struct {
    char *raw;    /* as written */
    char *prose;  /* running text: comments cut out; "" in code and captions */
    int code;     /* in a fenced code block, its fences included */
    int fence;    /* the opening fence (its attributes: command=...) */
} md_line;

typedef struct {
    char rel[256];      /* chapters/01-layernorm.md */
    char folder[32];    /* chapters */
    char stem[128];     /* 01-layernorm */
    md_line *lines;
    size_t n;
} md_doc;

static int fence_of(const char *s, char *ch, size_t *len)
{
    int lead = 0;
    while (*s == ' ' && lead < 4)
        s++, lead++;
    if (lead > 3 || (*s != '`' && *s != '~'))
        return 0;
    size_t n = 0;
    while (s[n] == *s)
        n++;
    if (n < 3)
        return 0;
    *ch = *s;
    *len = n;
    return 1;
}

static int closes_fence(const char *s, char ch, size_t len)
{
    char c;
    size_t n;
    if (!fence_of(s, &c, &n) || c != ch || n < len)
        return 0;
    s = strchr(s, c) + n;
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

static int doc_load(const char *root, const char *rel, md_doc *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->rel, sizeof d->rel, "%.255s", rel);
    snprintf(d->folder, sizeof d->folder, "%.*s", (int)strcspn(rel, "/"), rel);
    const char *base = strrchr(rel, '/');
    snprintf(d->stem, sizeof d->stem, "%.127s", base ? base + 1 : rel);
    char *dot = strrchr(d->stem, '.');
    if (dot)
        *dot = '\0';
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 0;
    char *buf = NULL;
    size_t blen = 0;
    ssize_t got;
    int in_code = 0, in_comment = 0, in_caption = 0;
    char fch = 0;
    size_t flen = 0;
    while ((got = getline(&buf, &blen, f)) >= 0) {
        while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
            buf[--got] = '\0';
        if (d->n == cap) {
            cap = cap ? cap * 2 : 256;
            d->lines = realloc(d->lines, cap * sizeof *d->lines);
            ck_assert_msg(d->lines != NULL, "out of memory reading %s", rel);
        }
        md_line *l = &d->lines[d->n++];
        memset(l, 0, sizeof *l);
        l->raw = strdup(buf);
        l->prose = strdup(buf);
        if (in_code) {
            l->code = 1;
            if (closes_fence(buf, fch, flen))
                in_code = 0;
            l->prose[0] = '\0';
            continue;
        }
        if (!in_comment && fence_of(buf, &fch, &flen)) {
            in_code = l->code = l->fence = 1;
            in_caption = 0;
            l->prose[0] = '\0';
            continue;
        }
        const char *t = buf;
        while (*t == ' ')
            t++;
        if (!*t)
            in_caption = 0;
        else if (!in_comment && (!strncmp(t, "![", 2) || !strncmp(t, "Table:", 6) || !strncmp(t, ": ", 2)))
            in_caption = 1;
        /* cut <!-- ... --> out of the running text, across lines */
        char *w = l->prose;
        for (const char *p = buf; *p;) {
            if (!in_comment && !strncmp(p, "<!--", 4)) {
                in_comment = 1;
                p += 4;
            } else if (in_comment && !strncmp(p, "-->", 3)) {
                in_comment = 0;
                p += 3;
            } else {
                if (!in_comment)
                    *w++ = *p;
                p++;
            }
        }
        *w = '\0';
        if (in_caption)
            l->prose[0] = '\0';
    }
    free(buf);
    fclose(f);
    return 0;
}

static void doc_free(md_doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->lines[i].raw);
        free(d->lines[i].prose);
    }
    free(d->lines);
    memset(d, 0, sizeof *d);
}

/* s with every `code span` blanked out. */
static void blank_code_spans(char *s)
{
    for (char *p = s; *p;) {
        if (*p != '`') {
            p++;
            continue;
        }
        size_t n = strspn(p, "`");
        char *q = p + n, *close = NULL;
        while ((q = strchr(q, '`'))) {
            size_t m = strspn(q, "`");
            if (m == n) {
                close = q;
                break;
            }
            q += m;
        }
        if (!close)
            return;
        memset(p, ' ', (size_t)(close + n - p));
        p = close + n;
    }
}

static int in_folders(const char *folders, const char *folder)
{
    size_t n = strlen(folder);
    for (const char *p = folders; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, folder, n))
            return 1;
        p += m + (p[m] == ',');
    }
    return 0;
}

/* The chapter number of chapters/NN-slug.md, or -1. */
static int chapter_number(const md_doc *d)
{
    if (strcmp(d->folder, "chapters") || !isdigit((unsigned char)d->stem[0]) ||
        !isdigit((unsigned char)d->stem[1]) || d->stem[2] != '-')
        return -1;
    return (d->stem[0] - '0') * 10 + (d->stem[1] - '0');
}

/* Whether l is a heading of `level` whose text is `text` (a {#id} may follow). */
static int heading_is(const md_line *l, int level, const char *text)
{
    if (l->code)
        return 0;
    for (int i = 0; i < level; i++)
        if (l->raw[i] != '#')
            return 0;
    if (l->raw[level] != ' ')
        return 0;
    const char *t = l->raw + level + 1;
    size_t n = strlen(text);
    if (strncasecmp(t, text, n))
        return 0;
    t += n;
    while (*t == ' ')
        t++;
    return *t == '\0' || *t == '{';
}

static int heading_level(const md_line *l)
{
    if (l->code || l->raw[0] != '#')
        return 0;
    int n = (int)strspn(l->raw, "#");
    return l->raw[n] == ' ' ? n : 0;
}

static int list_item(const char *s)
{
    if ((s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ')
        return 1;
    size_t n = strspn(s, "0123456789");
    return n > 0 && (s[n] == '.' || s[n] == ')') && s[n + 1] == ' ';
}

/* The class of a div opening (::: outcomes, ::: {.outcomes}), or "". */
static void div_class(const md_line *l, char *out, size_t n)
{
    out[0] = '\0';
    if (l->code || strncmp(l->raw, ":::", 3))
        return;
    const char *s = l->raw + strspn(l->raw, ":");
    while (*s == ' ')
        s++;
    if (*s == '{')
        s++;
    if (*s == '.')
        s++;
    size_t k = strcspn(s, " }");
    snprintf(out, n, "%.*s", (int)k, s);
}

/* ------------------------------------------------------------ the checks */

static void check_words(const rules *r, const md_doc *d, report *rep)
{
    for (int k = 0; k < r->nwords; k++) {
        const word_rule *w = &r->words[k];
        if (!in_folders(w->folders, d->folder))
            continue;
        for (size_t i = 0; i < d->n; i++) {
            regmatch_t m[1];
            if (regexec(&w->re, d->lines[i].raw, 1, m, 0) == 0)
                problem(rep, d->rel, (long)i + 1, w->name,
                        "\"%.*s\" (book/STYLE.md, \"Words that stay out\"; the pattern is in "
                        "book/prose-rules.txt)",
                        (int)(m[0].rm_eo - m[0].rm_so), d->lines[i].raw + m[0].rm_so);
        }
    }
}

typedef struct {
    const md_doc *doc;
    size_t line;
    char word[41];
} hex_word;

static int is_word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Hex words of MIN..MAX digits in s; with need_mixed, only those with a
 * digit and a letter. Appends to *list. */
static void hex_words(const rules *r, const md_doc *d, size_t line, const char *s, int need_mixed,
                      hex_word **list, size_t *n, size_t *cap)
{
    for (const char *p = s; *p;) {
        if (!isxdigit((unsigned char)*p) || (p > s && is_word_char(p[-1]))) {
            p++;
            continue;
        }
        size_t len = 0;
        int digit = 0, letter = 0;
        while (p[len] && strchr("0123456789abcdef", p[len])) {
            digit |= isdigit((unsigned char)p[len]) != 0;
            letter |= isalpha((unsigned char)p[len]) != 0;
            len++;
        }
        if (len >= (size_t)r->commit_min && len <= (size_t)r->commit_max && !is_word_char(p[len]) &&
            (!need_mixed || (digit && letter))) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                *list = realloc(*list, *cap * sizeof **list);
                ck_assert_msg(*list != NULL, "out of memory");
            }
            hex_word *h = &(*list)[(*n)++];
            h->doc = d;
            h->line = line;
            snprintf(h->word, sizeof h->word, "%.*s", (int)len, p);
        }
        p += len ? len : 1;
        while (is_word_char(*p))
            p++;
    }
}

/* Our own commit hashes: asked of git where ROOT has a .git (one
 * cat-file --batch-check for all of them), else any mixed hex word in
 * running text outside code. */
static void check_commits(const char *root, const rules *r, md_doc *docs, size_t ndocs, report *rep)
{
    char dotgit[1024];
    snprintf(dotgit, sizeof dotgit, "%s/.git", root);
    int git = access(dotgit, F_OK) == 0;
    hex_word *list = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < ndocs; k++)
        for (size_t i = 0; i < docs[k].n; i++) {
            if (git) {
                hex_words(r, &docs[k], i, docs[k].lines[i].raw, 0, &list, &n, &cap);
            } else {
                char *s = strdup(docs[k].lines[i].prose);
                blank_code_spans(s);
                hex_words(r, &docs[k], i, s, 1, &list, &n, &cap);
                free(s);
            }
        }
    int *hit = calloc(n + 1, sizeof *hit);
    if (git && n) {
        char in[1024];
        nl_scratch_path(in, sizeof in, "prose-hex-words.txt");
        FILE *f = fopen(in, "w");
        ck_assert_msg(f != NULL, "cannot write %s", in);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s^{commit}\n", list[i].word);
        fclose(f);
        char cmd[3072];
        snprintf(cmd, sizeof cmd, "git -C '%s' cat-file --batch-check <'%s' 2>/dev/null", root, in);
        FILE *p = popen(cmd, "r");
        ck_assert_msg(p != NULL, "cannot run %s", cmd);
        char out[512];
        for (size_t i = 0; i < n && fgets(out, sizeof out, p); i++)
            hit[i] = strstr(out, " commit ") != NULL;
        int st = pclose(p);
        ck_assert_msg(st == 0, "`%s` failed (exit %d): is git installed?", cmd, st);
        unlink(in);
    } else {
        for (size_t i = 0; i < n; i++)
            hit[i] = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (hit[i])
            problem(rep, list[i].doc->rel, (long)list[i].line + 1, "commit",
                    "%s %s: our own commit hashes stay out of the book (book/STYLE.md)", list[i].word,
                    git ? "is a commit of this repository" : "looks like a commit hash");
    free(hit);
    free(list);
}

/* A data file named in running text: by its folder, or by a name of a
 * file in that folder. */
static void check_data(const char *root, const rules *r, const md_doc *d, report *rep)
{
    if (!in_folders(r->data_folders, d->folder))
        return;
    char pat[1024], prefix[160];
    snprintf(prefix, sizeof prefix, "%s/", r->data_dir);
    snprintf(pat, sizeof pat, "%s/%s/*", root, r->data_dir);
    glob_t g;
    int have = glob(pat, 0, NULL, &g) == 0;
    for (size_t i = 0; i < d->n; i++) {
        const char *s = d->lines[i].prose;
        char token[256] = "";
        const char *at = strstr(s, prefix);
        if (at)
            snprintf(token, sizeof token, "%.*s", (int)strcspn(at, " \t`'\"()[]<>,;"), at);
        const char *named = at ? token : NULL;
        for (size_t k = 0; have && !named && k < g.gl_pathc; k++) {
            const char *base = strrchr(g.gl_pathv[k], '/') + 1;
            if (!strcmp(base, "README.md"))
                continue;
            size_t bl = strlen(base);
            for (const char *p = strstr(s, base); p; p = strstr(p + 1, base))
                if ((p == s || (!is_word_char(p[-1]) && p[-1] != '-' && p[-1] != '.')) &&
                    !is_word_char(p[bl]) && p[bl] != '-') {
                    named = base;
                    break;
                }
        }
        if (named)
            problem(rep, d->rel, (long)i + 1, "data",
                    "%s in running text: a data file is named only in a caption, a code block or its "
                    "command attribute, or an HTML comment",
                    named);
    }
    if (have)
        globfree(&g);
}

/* Title line, the GitHub line, the outcomes, the closing sections. */
static void check_chapter_shape(const rules *r, const md_doc *d, report *rep)
{
    int nn = chapter_number(d);
    char want[160];
    snprintf(want, sizeof want, "{#ch-%s}", d->stem + 3);
    const char *title = d->n ? d->lines[0].raw : "";
    size_t tl = strlen(title), wl = strlen(want);
    if (strncmp(title, "# ", 2) || tl < wl + 3 || strcmp(title + tl - wl, want) || title[tl - wl - 1] != ' ')
        problem(rep, d->rel, 1, "title", "the first line is \"# Title %s\"", want);
    size_t g = 1;
    while (g < d->n && !d->lines[g].raw[0])
        g++;
    if (g >= d->n || strcmp(d->lines[g].raw, r->github))
        problem(rep, d->rel, (long)(g < d->n ? g + 1 : 1), "github-line",
                "the first line under the title is exactly: %s", r->github);
    if (nn < 1)
        return;

    /* ::: outcomes, before the first section, with three items */
    size_t first_h2 = d->n, outcomes = 0, items = 0;
    int found = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (heading_level(&d->lines[i]) == 2) {
            first_h2 = i;
            break;
        }
        char cls[64];
        div_class(&d->lines[i], cls, sizeof cls);
        if (!strcmp(cls, "outcomes")) {
            found = 1;
            outcomes = i;
            for (size_t j = i + 1; j < d->n && strncmp(d->lines[j].raw, ":::", 3); j++)
                items += list_item(d->lines[j].raw);
            break;
        }
    }
    if (!found)
        problem(rep, d->rel, (long)(first_h2 < d->n ? first_h2 + 1 : 1), "outcomes",
                "no \"::: outcomes\" div before the first section");
    else if (items != 3)
        problem(rep, d->rel, (long)outcomes + 1, "outcomes",
                "the outcomes div lists %zu items; it lists three things the reader can do", items);

    /* the last two sections: ## Summary, ## Questions with 2 or 3 items */
    size_t last = 0, before = 0, nh2 = 0;
    for (size_t i = 0; i < d->n; i++)
        if (heading_level(&d->lines[i]) == 2) {
            before = last;
            last = i;
            nh2++;
        }
    int has_q = nh2 >= 1 && heading_is(&d->lines[last], 2, "Questions");
    int has_s = nh2 >= 2 && heading_is(&d->lines[before], 2, "Summary");
    if (!has_s)
        problem(rep, d->rel, (long)(nh2 >= 2 ? before + 1 : d->n), "summary",
                "the section before the last is \"## Summary\"");
    if (!has_q) {
        problem(rep, d->rel, (long)(nh2 ? last + 1 : d->n), "questions",
                "the last section is \"## Questions\"");
        return;
    }
    size_t q = 0;
    for (size_t j = last + 1; j < d->n; j++) {
        const md_line *l = &d->lines[j];
        if (!l->code && isdigit((unsigned char)l->raw[0]) && list_item(l->raw))
            q++;
    }
    if (q < 2 || q > 3)
        problem(rep, d->rel, (long)last + 1, "questions",
                "%zu numbered questions; a chapter ends with two or three", q);
}

/* Every ::: aside starts with a bold title. */
static void check_asides(const md_doc *d, report *rep)
{
    for (size_t i = 0; i < d->n; i++) {
        char cls[64];
        div_class(&d->lines[i], cls, sizeof cls);
        if (strcmp(cls, "aside"))
            continue;
        size_t j = i + 1;
        while (j < d->n && !d->lines[j].raw[0])
            j++;
        if (j >= d->n || strncmp(d->lines[j].raw, "**", 2))
            problem(rep, d->rel, (long)i + 1, "aside", "an aside's first line is its bold title: **Title.**");
    }
}

/* notebook/NN-slug.md starts "# Chapter N: Title {#nb-slug}", the chapter's
 * number as a reader writes it (6, not 06). */
static void check_notebook_title(const md_doc *d, report *rep)
{
    char want_id[160], want_head[32] = "# ";
    snprintf(want_id, sizeof want_id, "{#nb-%s}", d->stem + (isdigit((unsigned char)d->stem[0]) ? 3 : 0));
    if (strncmp(d->stem, "00-", 3) && isdigit((unsigned char)d->stem[0]))
        snprintf(want_head, sizeof want_head, "# Chapter %d: ", atoi(d->stem));
    const char *t = d->n ? d->lines[0].raw : "";
    size_t tl = strlen(t), wl = strlen(want_id);
    if (strncmp(t, want_head, strlen(want_head)) || tl < wl || strcmp(t + tl - wl, want_id))
        problem(rep, d->rel, 1, "notebook-title", "the first line is \"%sTitle %s\"",
                strcmp(want_head, "# ") ? want_head : "# ", want_id);
}

static void check_budgets(const rules *r, md_doc *docs, size_t ndocs, report *rep)
{
    long total = 0;
    const md_doc *longest = NULL, *shortest = NULL;
    for (size_t k = 0; k < ndocs; k++) {
        const md_doc *d = &docs[k];
        int nn = chapter_number(d);
        if (nn < 0)
            continue;
        if (r->budget[nn] < 0)
            problem(rep, d->rel, 1, "budget", "no budget for chapter %d in book/prose-rules.txt", nn);
        else if (d->n > (size_t)r->budget[nn])
            problem(rep, d->rel, (long)d->n, "budget", "%zu lines; chapter %d has at most %d", d->n, nn,
                    r->budget[nn]);
        if (nn == 0)
            continue;
        total += (long)d->n;
        if (!longest || d->n > longest->n)
            longest = d;
        if (!shortest || d->n < shortest->n)
            shortest = d;
    }
    if (!longest)
        return;
    if (total > r->total)
        problem(rep, longest->rel, (long)longest->n, "total",
                "the chapters have %ld lines together, at most %d (this one is the longest)", total, r->total);
    double ratio = (double)longest->n / (double)(shortest->n ? shortest->n : 1);
    if (ratio > r->ratio)
        problem(rep, longest->rel, (long)longest->n, "ratio",
                "%zu lines, %.2f times the shortest chapter (%s, %zu lines); at most %.2f", longest->n, ratio,
                shortest->rel, shortest->n, r->ratio);
}

/* The command of a ```{.text command="..."} fence, or NULL. */
static const char *fence_command(const md_line *l, char *buf, size_t n)
{
    const char *c = l->fence ? strstr(l->raw, "command=\"") : NULL;
    if (!c)
        return NULL;
    c += strlen("command=\"");
    size_t len = strcspn(c, "\"");
    snprintf(buf, n, "%.*s", (int)len, c);
    return buf;
}

/* Rows of a `normlab bench --show` output: the lines under each table's
 * "implementation" header, up to a blank line. -1 if it could not run. */
static long listing_rows(const char *root, const char *normlab, const char *command)
{
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "cd '%s' && '%s'", root, normlab);
    const char *args = command + strcspn(command, " ");
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, "%s 2>/dev/null", args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024];
    long rows = 0;
    int in_table = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, "implementation", 14))
            in_table = 1;
        else if (!strcmp(trim(line), "") || line[0] == '=' || line[0] == '(')
            in_table = 0;
        else if (in_table)
            rows++;
    }
    return pclose(p) == 0 ? rows : -1;
}

static void check_listings(const char *root, const rules *r, const md_doc *d, const char *normlab,
                           report *rep)
{
    if (chapter_number(d) < 1)
        return;
    int count = 0;
    size_t cl = strlen(r->listing_cmd);
    for (size_t i = 0; i < d->n; i++) {
        char cmd[2048];
        if (!fence_command(&d->lines[i], cmd, sizeof cmd) || strncmp(cmd, r->listing_cmd, cl) ||
            (cmd[cl] && cmd[cl] != ' '))
            continue;
        if (++count > r->listing_max)
            problem(rep, d->rel, (long)i + 1, "listing",
                    "listing %d of `%s` in this chapter; at most %d (the rest go to the notebook)", count,
                    r->listing_cmd, r->listing_max);
        if (!normlab)
            continue;
        long rows = listing_rows(root, normlab, cmd);
        if (rows < 0)
            problem(rep, d->rel, (long)i + 1, "listing", "`%s` failed when run from %s", cmd, root);
        else if (rows > r->listing_rows)
            problem(rep, d->rel, (long)i + 1, "listing", "`%s` prints %ld rows; at most %d", cmd, rows,
                    r->listing_rows);
    }
}

/* The value of KEY in an exercise.conf, or "". */
static void conf_value(const char *path, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (!strcmp(trim(line), key)) {
            snprintf(out, n, "%s", trim(eq + 1));
            break;
        }
    }
    fclose(f);
}

/* Every exercise of chapter N is named in its text as "exercise NN". */
static void check_exercises(const char *root, md_doc *docs, size_t ndocs, report *rep)
{
    char pat[1024];
    snprintf(pat, sizeof pat, "%s/exercises/*/exercise.conf", root);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        char chapter[32];
        conf_value(g.gl_pathv[k], "chapter", chapter, sizeof chapter);
        int nn = atoi(chapter);
        const md_doc *d = NULL;
        for (size_t j = 0; j < ndocs && !d; j++)
            if (chapter_number(&docs[j]) == nn && nn > 0)
                d = &docs[j];
        if (!d)
            continue;
        char id[128];
        const char *end = strrchr(g.gl_pathv[k], '/');
        const char *start = end - 1;
        while (start > g.gl_pathv[k] && start[-1] != '/')
            start--;
        snprintf(id, sizeof id, "%.*s", (int)(end - start), start);
        char re_text[64];
        snprintf(re_text, sizeof re_text, "\\bexercises? %.2s\\b", id);
        regex_t re;
        ck_assert_int_eq(regcomp(&re, re_text, REG_EXTENDED | REG_ICASE | REG_NOSUB), 0);
        int named = 0;
        for (size_t i = 0; i < d->n && !named; i++)
            named = regexec(&re, d->lines[i].raw, 0, NULL, 0) == 0;
        regfree(&re);
        if (!named)
            problem(rep, d->rel, 1, "exercise",
                    "exercises/%s says chapter = %d, and the text never names it as \"exercise %.2s\"", id, nn,
                    id);
    }
    globfree(&g);
}

/* The Markdown files of FOLDER under root, sorted; appended to *docs. */
static void load_folder(const char *root, const char *folder, const char *pattern, md_doc **docs, size_t *n)
{
    char pat[1024];
    snprintf(pat, sizeof pat, "%s/%s/%s", root, folder, pattern);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return;
    *docs = realloc(*docs, (*n + g.gl_pathc) * sizeof **docs);
    ck_assert_msg(*docs != NULL, "out of memory");
    for (size_t k = 0; k < g.gl_pathc; k++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", folder, strrchr(g.gl_pathv[k], '/') + 1);
        if (doc_load(root, rel, &(*docs)[*n]) == 0)
            (*n)++;
    }
    globfree(&g);
}

/* Every rule on the tree at root. normlab: the program that runs the
 * listings' commands (their rows are counted), or NULL (only the listings
 * are counted). Returns the number of problems; the report holds them. */
static int check_tree(const char *root, const char *normlab, report *rep)
{
    rules r;
    char err[1024] = "";
    if (rules_load(root, &r, err, sizeof err) != 0) {
        problem(rep, "book/prose-rules.txt", 0, "rules", "%s", err);
        return rep->count;
    }
    md_doc *docs = NULL;
    size_t n = 0;
    load_folder(root, "chapters", "[0-9][0-9]-*.md", &docs, &n);
    load_folder(root, "appendices", "*.md", &docs, &n);
    load_folder(root, "notebook", "*.md", &docs, &n);

    char preface[1024];
    snprintf(preface, sizeof preface, "%s/chapters/00-preface.md", root);
    if (access(preface, R_OK) != 0)
        problem(rep, "chapters/00-preface.md", 0, "preface",
                "missing: the book opens with \"How to use this course\" (book/STYLE.md)");
    for (size_t k = 0; k < n; k++) {
        md_doc *d = &docs[k];
        check_words(&r, d, rep);
        check_data(root, &r, d, rep);
        check_asides(d, rep);
        if (chapter_number(d) >= 0) {
            check_chapter_shape(&r, d, rep);
            check_listings(root, &r, d, normlab, rep);
        }
        if (!strcmp(d->folder, "notebook"))
            check_notebook_title(d, rep);
    }
    check_commits(root, &r, docs, n, rep);
    check_budgets(&r, docs, n, rep);
    check_exercises(root, docs, n, rep);
    for (size_t k = 0; k < n; k++)
        doc_free(&docs[k]);
    free(docs);
    rules_free(&r);
    return rep->count;
}

/* ---------------------------------------------------- synthetic chapters */

/* Writes ROOT/REL, making its folders. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* text with the first `from` replaced by `to` (freed by the caller). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "the test's chapter has no \"%s\" to replace", from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    ck_assert(out != NULL);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

#define GITHUB_LINE "> On GitHub this file shows empty listings and numbers: `make web` or `make book` fills them in from the code."

/* A chapter that follows book/STYLE.md, and names its data, threads and
 * code the ways that are allowed. */
static const char good_chapter[] =
    "# The first lesson {#ch-first}\n"
    "\n" GITHUB_LINE "\n"
    "\n"
    "::: outcomes\n"
    "After this chapter you will be able to:\n"
    "\n"
    "- compute a mean;\n"
    "- compute a variance;\n"
    "- explain why both matter.\n"
    ":::\n"
    "\n"
    "## The idea\n"
    "\n"
    "PyTorch fixed the default in pytorch/pytorch#142848, and transformers#5651\n"
    "reports the overflow; ONNX Runtime's InferenceSession runs the graph.\n"
    "A row of 1234567 values is defaced by nothing. Exercise 01 asks you to\n"
    "write it.\n"
    "MARKER\n"
    "\n"
    "![AMD EPYC Zen 4, 2 cores; book/data/one-reference.csv.](fig-one.pdf)\n"
    "\n"
    "<!-- drawn from one-reference.csv,\n"
    "     and from book/data/one-reference.csv -->\n"
    "\n"
    "```{.text command=\"normlab bench --show book/data/one-reference.csv\"}\n"
    "```\n"
    "\n"
    "```sh\n"
    "git show a1b2c3d:book/data/one-reference.csv\n"
    "```\n"
    "\n"
    "::: aside\n"
    "**Why two passes.** Because the mean comes first.\n"
    ":::\n"
    "\n"
    "## Summary\n"
    "\n"
    "The mean and the variance, in two passes.\n"
    "\n"
    "## Questions\n"
    "\n"
    "1. Why does the second pass need the first?\n"
    "2. What does the variance measure?\n";

static const char good_preface[] =
    "# How to use this course {#ch-preface}\n"
    "\n" GITHUB_LINE "\n"
    "\n"
    "Read the chapters in order.\n";

static const char good_notebook[] =
    "# Chapter 1: The first lesson {#nb-first}\n"
    "\n"
    "The run of book/data/one-reference.csv met its goal on 2 cores.\n";

/* A bench CSV of `rows` rows, all on one shape. */
static void put_csv(const char *root, const char *rel, int rows)
{
    size_t cap = 256 + (size_t)rows * 160;
    char *csv = malloc(cap);
    ck_assert(csv != NULL);
    size_t n = (size_t)snprintf(csv, cap,
                                "impl,norm,rows,d,threads,peer,status,samples,reps,median_s,p10_s,p90_s,gbps,"
                                "copy_gbps,roof,frac_copy,frac_p10,frac_p90,speedup,max_err,tol,memcpy_gbps,"
                                "loop_gbps,stream_gbps,device,dtype,bytes_per_elem\n");
    for (int i = 0; i < rows; i++)
        n += (size_t)snprintf(csv + n, cap - n,
                              "k%d,RMSNorm,64,64,1,0,ok,5,1,1e-3,1e-3,1e-3,1.0,2.0,memcpy,0.5,0.4,0.6,,1e-7,"
                              "1e-5,2.0,,,cpu,f32,8\n",
                              i);
    put(root, rel, csv);
    free(csv);
}

/* The real rules file, and `extra` lines after it (a later line wins). */
static void put_rules(const char *root, const char *extra)
{
    FILE *f = fopen("book/prose-rules.txt", "r");
    ck_assert_msg(f != NULL, "book/prose-rules.txt: %s (run from the repository root)", strerror(errno));
    char *text = NULL;
    size_t len = 0;
    ck_assert(getdelim(&text, &len, '\0', f) > 0);
    fclose(f);
    size_t n = strlen(text) + strlen(extra) + 2;
    char *all = malloc(n);
    ck_assert(all != NULL);
    snprintf(all, n, "%s\n%s", text, extra);
    put(root, "book/prose-rules.txt", all);
    free(all);
    free(text);
}

/* A fresh tree in the scratch folder: the good chapter (with `marker`
 * in place of MARKER), the preface, a notebook page, an appendix, an
 * exercise of chapter 1 and a data file of 4 rows. Returns its root. */
static const char *tree(const char *marker)
{
    nl_scratch_clear();
    const char *root = nl_scratch_name("book");
    mkdir(root, 0755);
    put_rules(root, "");
    char *ch = replaced(good_chapter, "MARKER", marker);
    put(root, "chapters/01-first.md", ch);
    free(ch);
    put(root, "chapters/00-preface.md", good_preface);
    put(root, "notebook/00-about.md", "# About the notebook {#nb-about}\n\nThe record of the runs.\n");
    put(root, "notebook/01-first.md", good_notebook);
    put(root, "appendices/A-more.md", "# More {#app-more}\n\nMore of the same.\n");
    put(root, "exercises/01-mean/exercise.conf", "title = Mean\nchapter = 1\nsuite = welford\npoints = 10\n");
    put_csv(root, "book/data/one-reference.csv", 4);
    return root;
}

/* chapters/01-first.md: the good chapter (MARKER: one plain line) with
 * `from` replaced by `to`. */
static void put_variant(const char *root, const char *from, const char *to)
{
    char *plain = replaced(good_chapter, "MARKER", "Nothing more.");
    char *ch = strcmp(from, "MARKER") ? replaced(plain, from, to) : replaced(good_chapter, from, to);
    put(root, "chapters/01-first.md", ch);
    free(ch);
    free(plain);
}

/* The checks on root: expects no problem (rule NULL), or one naming
 * "WHERE: RULE:" (where = "FILE:LINE"), or "FILE:N: RULE:" for any line N
 * (where = "FILE:"). */
static void expect(const char *root, const char *where, const char *rule)
{
    report rep = {0};
    check_tree(root, nl_normlab_path(), &rep);
    if (!rule) {
        ck_assert_msg(rep.count == 0, "a chapter that follows book/STYLE.md failed:\n%s", rep.text);
        return;
    }
    size_t wl = strlen(where), rl = strlen(rule);
    int any_line = where[wl - 1] == ':', found = 0;
    for (const char *p = rep.text; p && *p && !found; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, where, wl))
            continue;
        const char *q = p + wl;
        if (any_line)
            q += strspn(q, "0123456789");
        found = !strncmp(q, ": ", 2) && !strncmp(q + 2, rule, rl) && q[2 + rl] == ':';
    }
    ck_assert_msg(found, "expected a problem \"%s%s %s: ...\"; the check reported:\n%s", where,
                  any_line ? "N:" : ":", rule, rep.text ? rep.text : "(nothing)\n");
    report_free(&rep);
}

/* Where the good chapter's MARKER line is. */
#define MARKER_LINE "chapters/01-first.md:19"

/* Lines of the good chapter besides its MARKER line. */
static int good_lines(void)
{
    int n = 0;
    for (const char *p = good_chapter; *p; p++)
        n += *p == '\n';
    return n - 1;
}

/* ------------------------------------------------------------- the tests */

START_TEST(rules_file_reads)
{
    rules r;
    char err[1024] = "";
    ck_assert_msg(rules_load(".", &r, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(r.github, GITHUB_LINE);
    ck_assert_int_ge(r.nwords, 8);
    rules_free(&r);
}
END_TEST

START_TEST(a_chapter_that_follows_the_style_passes)
{
    expect(tree("Nothing more."), NULL, NULL);
}
END_TEST

/* Lines put in place of the good chapter's MARKER line: one sentence for
 * each word rule of book/prose-rules.txt, which that rule must catch, and
 * the other rules about running text. rule NULL: the line passes. */
static const struct {
    const char *rule, *text;
} put_back[] = {
    {"session", "A later session found the reason."},
    {"issue-number", "The cases are listed in issue 22."},
    {"issue-number", "The cases are listed in pull request 22."},
    {"bare-number", "In kekzl/imp PR #1289 the weight is offset."},
    {"bare-number", "The fix (\"Fixes #140092\") came later."},
    {"helper", "A helper agent ran the profile again."},
    {NULL, "The loop calls a helper, prefetch4, declared static inline."},
    {"vm", "On this VM the counters are missing."},
    {"vm", "Measured on a VM."},
    {"vm", "A virtual machine hides the PMU."},
    {NULL, "Set vm.nr_hugepages in /proc/sys/vm first."},
    {"load-average", "The load average was 1.2 at the start."},
    {"load-average", "It ran while another build held the core (load 3.0)."},
    {"earlier-edition", "An earlier edition said otherwise."},
    {"this-stop", "At this stop the ladder ends."},
    {"shared-machine", "One rough run on a shared machine."},
    {"shared-machine", "Other engineers were compiling."},
    {"goal-tally", "The skew rung is at the goal."},
    {"goal-tally", "Both goals met on two cores."},
    /* no .git in the scratch tree: any hex word with a digit and a letter,
     * in running text outside code */
    {"commit", "The change a1b2c3d4 made it faster."},
    {NULL, "The change `a1b2c3d4` made it faster."},
    {"data", "The numbers are book/data/one-reference.csv."},
    {"data", "The numbers are `book/data/one-reference.csv`."},
    {"data", "The numbers are in one-reference.csv."},
    {NULL, "The numbers are in build/tone-reference.csv."},  /* another file */
    {"aside", "::: aside\nJust text.\n:::"},
};

START_TEST(each_rule_on_running_text_fails_when_put_back)
{
    const char *rule = put_back[_i].rule, *text = put_back[_i].text;
    expect(tree(text), rule ? MARKER_LINE : NULL, rule);
}
END_TEST

START_TEST(every_word_rule_has_a_sentence_here)
{
    rules r;
    char err[1024] = "";
    ck_assert_msg(rules_load(".", &r, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < r.nwords; k++) {
        int found = 0;
        for (size_t i = 0; i < sizeof put_back / sizeof put_back[0]; i++)
            found |= put_back[i].rule && !strcmp(put_back[i].rule, r.words[k].name);
        ck_assert_msg(found, "word rule %s of book/prose-rules.txt has no sentence in put_back[] here: "
                             "add one it must catch", r.words[k].name);
    }
    rules_free(&r);
}
END_TEST

/* The good chapter with one change: `from` becomes `to`; the check then
 * reports `rule` at FILE:LINE (line "": any line), or nothing (rule NULL). */
static const struct {
    const char *from, *to, *line, *rule;
} crafted[] = {
    {"{#ch-first}", "{#ch:first}", "1", "title"},
    {"fills them in", "fills it in", "3", "github-line"},
    {"- explain why both matter.\n", "", "5", "outcomes"},
    {"- compute a mean;\n", "- compute a mean;\n- and a sum;\n", "5", "outcomes"},
    {"::: outcomes", "::: aside", "13", "outcomes"},
    {"::: outcomes", "::: {.outcomes}", NULL, NULL},
    {"## Summary", "## In short", "", "summary"},
    {"2. What does the variance measure?\n", "", "", "questions"},
    {"2. What", "2. Why?\n3. How?\n4. What", "", "questions"},
    {"2. What", "2. Why?\n3. What", NULL, NULL},
    {"## Questions", "## Questions\n\nNone.\n\n## Further reading", "", "questions"},
    {"Exercise 01 asks", "The exercise asks", "1", "exercise"},
    {"Exercise 01 asks", "EXERCISE 01 asks", NULL, NULL},
    /* a second bench listing, above the chapter's own at line 26 */
    {"MARKER", "```{.text command=\"normlab bench --show book/data/one-reference.csv\"}\n```", "27", "listing"},
};

START_TEST(each_rule_on_a_chapter_fails_on_a_crafted_one)
{
    const char *root = tree("Nothing more.");
    put_variant(root, crafted[_i].from, crafted[_i].to);
    char where[64];
    snprintf(where, sizeof where, "chapters/01-first.md:%s", crafted[_i].line ? crafted[_i].line : "");
    expect(root, crafted[_i].rule ? where : NULL, crafted[_i].rule);
}
END_TEST

START_TEST(words_are_checked_in_the_notebook_and_appendices)
{
    const char *root = tree("Nothing more.");
    put(root, "notebook/01-first.md",
        "# Chapter 1: The first lesson {#nb-first}\n\nA later session ran it again.\n");
    expect(root, "notebook/01-first.md:3", "session");
    root = tree("Nothing more.");
    put(root, "appendices/A-more.md", "# More {#app-more}\n\nMeasured on a VM.\n");
    expect(root, "appendices/A-more.md:3", "vm");
}
END_TEST

START_TEST(a_commit_of_the_repository_fails_even_in_code)
{
    if (system("git --version >/dev/null 2>&1") != 0)
        NL_SKIP("git is not installed");
    const char *root = tree("Nothing more.");
    char cmd[2048], out[64] = "";
    snprintf(cmd, sizeof cmd,
             "cd '%s' && git init -q . && git -c user.name=t -c user.email=t@t add -A && "
             "git -c user.name=t -c user.email=t@t commit -qm t && git rev-parse --short=9 HEAD",
             root);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    ck_assert(fgets(out, sizeof out, p) != NULL);
    ck_assert_int_eq(pclose(p), 0);
    out[strcspn(out, "\n")] = '\0';
    char text[256];
    snprintf(text, sizeof text, "Built from `%s`; deadbeef0 is a word, not a commit.", out);
    put_variant(root, "MARKER", text);
    expect(root, MARKER_LINE, "commit");
    /* a hex word that is no commit of this repository passes, even mixed */
    put_variant(root, "MARKER", "The word deadbeef0 and 0a1b2c3d4 are no commits.");
    expect(root, NULL, NULL);
}
END_TEST

START_TEST(a_chapter_over_its_budget_fails)
{
    /* chapter 1's budget is 180 lines: the good chapter padded to 180, then 181 */
    static char pad[8192];
    pad[0] = '\0';
    for (int i = good_lines(); i < 180; i++)
        strcat(pad, i + 1 < 180 ? "x\n" : "x");
    expect(tree(pad), NULL, NULL);
    strcat(pad, "\nx");
    expect(tree(pad), "chapters/01-first.md:181", "budget");
}
END_TEST

START_TEST(the_total_and_the_ratio_are_held)
{
    const char *root = tree("Nothing more.");
    char *two = replaced(good_chapter, "{#ch-first}", "{#ch-second}");
    put(root, "chapters/02-second.md", two);
    free(two);
    expect(root, NULL, NULL);
    put_rules(root, "total 80\n");
    expect(root, "chapters/01-first.md:", "total");
    put_rules(root, "");
    /* 44 and 44 + 3.5 * 44 - 43 + 1 lines: just over 3.5 times */
    static char pad[8192];
    pad[0] = '\0';
    int over = (int)(3.5 * (good_lines() + 1)) - good_lines() + 1;
    for (int i = 0; i < over; i++)
        strcat(pad, i + 1 < over ? "x\n" : "x");
    put_variant(root, "MARKER", pad);
    expect(root, "chapters/01-first.md:", "ratio");
}
END_TEST

START_TEST(the_preface_has_the_github_line)
{
    const char *root = tree("Nothing more.");
    char *ch = replaced(good_preface, GITHUB_LINE "\n", "Read me.\n");
    put(root, "chapters/00-preface.md", ch);
    free(ch);
    expect(root, "chapters/00-preface.md:3", "github-line");
}
END_TEST

START_TEST(a_bench_listing_has_ten_rows_at_most)
{
    if (!nl_normlab_path())
        NL_SKIP("build/normlab is not built: the rows of a listing are not counted");
    const char *root = tree("Nothing more.");
    put_csv(root, "book/data/one-reference.csv", 10);
    expect(root, NULL, NULL);
    put_csv(root, "book/data/one-reference.csv", 11);
    expect(root, "chapters/01-first.md:26", "listing");
}
END_TEST

START_TEST(the_preface_exists)
{
    const char *root = tree("Nothing more.");
    char path[1024];
    snprintf(path, sizeof path, "%s/chapters/00-preface.md", root);
    ck_assert_int_eq(unlink(path), 0);
    expect(root, "chapters/00-preface.md:0", "preface");
}
END_TEST

START_TEST(a_notebook_page_names_its_chapter)
{
    const char *root = tree("Nothing more.");
    put(root, "notebook/01-first.md", "# The first lesson {#nb-first}\n\nRuns.\n");
    expect(root, "notebook/01-first.md:1", "notebook-title");
}
END_TEST

/* Every rule on this repository's chapters/, appendices/ and notebook/. */
START_TEST(the_book_follows_its_style)
{
    if (access("book/prose-rules.txt", R_OK) != 0)
        NL_SKIP("not run from the repository root (book/prose-rules.txt not found)");
    report rep = {0};
    int n = check_tree(".", nl_normlab_path(), &rep);
    if (n) {
        fprintf(stderr, "%s", rep.text);
        /* the message carries the first lines (Check takes 4 KiB); stderr has them all */
        char head[3000];
        snprintf(head, sizeof head, "%s", rep.text);
        char *cut = strrchr(head, '\n');
        if (cut && strlen(rep.text) >= sizeof head)
            snprintf(cut + 1, sizeof head - (size_t)(cut + 1 - head), "...\n");
        ck_abort_msg("%d problems in the book (book/STYLE.md, book/prose-rules.txt); all of them are on "
                     "stderr above, the first:\n%s",
                     n, head);
    }
    report_free(&rep);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("prose");
    TCase *rules_case = tcase_create("rules");
    tcase_set_timeout(rules_case, 60);
    tcase_add_test(rules_case, rules_file_reads);
    tcase_add_test(rules_case, a_chapter_that_follows_the_style_passes);
    tcase_add_loop_test(rules_case, each_rule_on_running_text_fails_when_put_back, 0,
                        (int)(sizeof put_back / sizeof put_back[0]));
    tcase_add_loop_test(rules_case, each_rule_on_a_chapter_fails_on_a_crafted_one, 0,
                        (int)(sizeof crafted / sizeof crafted[0]));
    tcase_add_test(rules_case, every_word_rule_has_a_sentence_here);
    tcase_add_test(rules_case, words_are_checked_in_the_notebook_and_appendices);
    tcase_add_test(rules_case, a_commit_of_the_repository_fails_even_in_code);
    tcase_add_test(rules_case, a_chapter_over_its_budget_fails);
    tcase_add_test(rules_case, the_total_and_the_ratio_are_held);
    tcase_add_test(rules_case, the_preface_has_the_github_line);
    tcase_add_test(rules_case, a_bench_listing_has_ten_rows_at_most);
    tcase_add_test(rules_case, the_preface_exists);
    tcase_add_test(rules_case, a_notebook_page_names_its_chapter);
    suite_add_tcase(s, rules_case);
    /* CK_RUN_CASE=book build/tests/check_prose: only this repository's book */
    TCase *book = tcase_create("book");
    tcase_set_timeout(book, 120);
    tcase_add_test(book, the_book_follows_its_style);
    suite_add_tcase(s, book);
    return s;
}
