#!/usr/bin/env bash
# Attack: _exit(0) reached without naming it.  From the
# address of an allowed libc function the code walks down to libc's ELF
# header, reads its dynamic symbol table and calls _exit: `nm -u` shows
# only printf and strcmp, so policy.sh lets it through.  Once, Check counted
# a test child that exits 0 as passed; now the exit ends the worker, and
# every call it leaves unanswered fails its test.
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<'C'
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "normlab.h"

static void (*find_exit(void))(int)
{
    uintptr_t p = (uintptr_t)&printf & ~(uintptr_t)4095;
    while (memcmp((const void *)p, ELFMAG, SELFMAG) != 0)
        p -= 4096;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(p + eh->e_phoff);
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const Elf64_Dyn *)(p + ph[i].p_vaddr);
    uintptr_t sym = 0, str = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB) sym = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRTAB) str = dyn->d_un.d_ptr;
    }
    if (sym < p) sym += p;
    if (str < p) str += p;
    for (const Elf64_Sym *s = (const Elf64_Sym *)sym; (uintptr_t)s < str; s++)
        if (s->st_name && strcmp((const char *)(str + s->st_name), "_exit") == 0)
            return (void (*)(int))(p + s->st_value);
    return NULL;
}

int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    (void)x; (void)gamma; (void)beta; (void)eps; (void)rows; (void)d; (void)y;
    void (*leave)(int) = find_exit();
    if (leave)
        leave(0);
    return 0;
}
C
check() {
    zero 02-rmsnorm
    expect 'nl_rmsnorm_fused: the process running your code exited \(status 0\)'
}
both_ways check "$T/sub" 02
