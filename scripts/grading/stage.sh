#!/usr/bin/env bash
# stage.sh STAGE — what the sandbox may see, built once per grading run
# (grade.sh calls it; a class shares one).
#
#   STAGE/common   headers of the code tree, the harness (its main renamed
#                  for runner.c), every suite and the CLI as objects, test
#                  fixtures, the OpenCL kernels that no exercise grades,
#                  driver.sh, policy.sh and sandbox.sh (for --nested)
#   STAGE/ex/ID    per exercise: lib.a (the library without the files the
#                  exercise grades), files.txt, suites.txt, conf.sh, and the
#                  calls and globals the real code has (allowed-*.txt); for
#                  an exercise of C code the two sides of the judge
#                  (judge/wire.h): proxy.o (the graded functions, asking
#                  the worker), shell.o (the starter's file: everything but
#                  the graded functions, which it holds weak and empty) and
#                  worker.o (the worker's main and servers)
#
# No .c file of the code tree and nothing of solutions/ is copied: the
# sandbox sees the library only as objects, and for exercise ID not even
# the objects of ID's own files.  Everything here is built outside the
# sandbox from trusted sources, with the Makefile's flags.
#
# Environment: as grade.sh (CC, GRADE_CFLAGS, ...), and EXDIR, CODE, SUITES,
# BUILD, EX_FILTER set by it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
stage=$1
c=$stage/common
mkdir -p "$c/inc" "$c/obj/harness" "$c/obj/suites" "$c/obj/cli" "$c/obj/judge" "$c/cl" "$stage/ex" || exit 2

(cd "$CODE" && find . \( -name '*.h' -o -name '*.def' \) | while read -r h; do mkdir -p "$c/inc/${h%/*}" && cp "$h" "$c/inc/$h"; done)
cp -R tests/fixtures "$c/fixtures" 2>/dev/null || mkdir -p "$c/fixtures"
cp "$here/driver.sh" "$here/policy.sh" "$here/sandbox.sh" "$here/insn-map.sh" "$c/"

cc_quiet() { "$CC" "$@" >"$stage/cc.log" 2>&1 || { echo "grade: cannot build the grader's own part:" >&2; cat "$stage/cc.log" >&2; exit 2; }; }
for h in tests/harness/*.c; do
    cc_quiet $cflags -Itests/harness -Dmain=nl_harness_main -c "$h" -o "$c/obj/harness/$(basename "${h%.c}").o"
done
cc_quiet $cflags -c "$here/runner.c" -o "$c/obj/harness/runner.o"
cc_quiet $cflags -c "$here/judge/wire.c" -o "$c/obj/judge/wire.o"
cc_quiet $cflags -c "$here/judge/judge_check.c" -o "$c/obj/judge/judge_check.o"
cc_quiet $cflags -c "$here/judge/count.c" -o "$c/obj/judge/count.o"
# The starters: the shell of each graded file (its code minus the answers).
"$here/exercises.sh" generate "$stage/starters" "$CODE" >/dev/null || exit 2
for o in "$BUILD"/obj/code/cli/*.o; do
    [ -f "$o" ] && [ -f "code/cli/$(basename "${o%.o}").c" ] && cp "$o" "$c/obj/cli/"
done

# Every .c and .cl file an exercise grades, as "ID PATH-UNDER-CODE".
graded=$("$here/exercises.sh" list "$CODE") || exit 2
graded=$(printf '%s\n' "$graded" | sed "s|^\([^ ]*\) $CODE/|\1 |")
printf '%s\n' "$graded" | awk '{ print $2 }' | grep '\.cl$' >"$stage/graded-cl.txt"
for k in code/opencl/kernels/*.cl; do
    [ -f "$k" ] || continue
    grep -qx "opencl/kernels/${k##*/}" "$stage/graded-cl.txt" || cp "$k" "$c/cl/"
done

# Every exercise's file as its untouched starter, compiled here with the
# grader's flags: the library an exercise is graded with holds no other
# exercise's answer, in the course as in the handout (whose build holds
# the student's own files), so an exercise's grade depends on its own
# code alone and is the same in both.  A file that cannot be compiled
# here (14's MPI operation without Open MPI's headers) is left out.
starter_obj() { printf '%s/starter-obj/%s.o\n' "$stage" "${1%.c}"; }
printf '%s\n' "$graded" | while read -r id src; do
    case $src in *.c) ;; *) continue ;; esac
    o=$(starter_obj "$src")
    mkdir -p "$(dirname "$o")"
    # shellcheck disable=SC2046
    "$CC" $cflags $(isa_flags "$src") $(case $src in mpi/*) pkg-config --cflags ompi-c 2>/dev/null ;; esac) \
        -I"$CODE/include" -I"$CODE" -I"$CODE/$(dirname "$src")" -c "$stage/starters/$id/${src##*/}" -o "$o" \
        >"$stage/cc.log" 2>&1 || rm -f "$o"
done
# The library objects, one per library source (an exercise's file: its
# starter's), and the generated ones.
lib_objs=()
declare -A is_graded=()
while read -r _ f; do is_graded[$f]=1; done <<<"$graded"
while read -r src; do
    rel=${src#code/}
    if [ -n "${is_graded[$rel]:-}" ]; then
        o=$(starter_obj "$rel"); [ -f "$o" ] && lib_objs+=("$o")
    elif [ -f "$BUILD/obj/${src%.c}.o" ]; then
        lib_objs+=("$BUILD/obj/${src%.c}.o")
    fi
done < <(find code -name '*.c' ! -path 'code/cli/*' | LC_ALL=C sort)
# The library's table of embedded kernel sources holds every .cl file,
# answers included (08's reduce.cl): the stage's own table holds the
# kernels no exercise grades (those copied to common/cl above) and, for
# each graded one, its starter, so no answer reaches the sandbox inside
# lib.a, and a kernel built without the student's file (a test's own
# folder of kernels) gets the starter's stub.
embedded=$(find "$c/cl" -name '*.cl' | LC_ALL=C sort
           printf '%s\n' "$graded" | awk '$2 ~ /\.cl$/ { n = split($2, p, "/"); print p[n] "\t" $1 }' |
               while IFS=$'\t' read -r k id; do printf '%s\n' "$stage/starters/$id/$k"; done)
# shellcheck disable=SC2086
"$here/../tools/embed-cl.sh" "$stage/cl_kernels.c" $embedded || exit 2
cc_quiet $cflags -c "$stage/cl_kernels.c" -o "$c/obj/cl_kernels.o"
while read -r o; do
    case $o in "$BUILD/obj/gen/cl_kernels.o") o=$c/obj/cl_kernels.o ;; esac
    lib_objs+=("$o")
done < <(find "$BUILD/obj" -name '*.o' ! -path "$BUILD/obj/code/*" \
    ! -path "$BUILD/obj/tests/*" ! -path "$BUILD/obj/scripts/*" 2>/dev/null | LC_ALL=C sort)
[ ${#lib_objs[@]} -gt 0 ] || { echo "grade: no library objects in $BUILD/obj; run make build first" >&2; exit 2; }
# Who defines and who calls what, over the whole library, for the workers'
# libraries below: "D OBJ SYMBOL" and "U OBJ SYMBOL".
nm -A -g "${lib_objs[@]}" 2>/dev/null | awk '{ f = $1; sub(/:[^:]*$/, "", f)
    if ($(NF - 1) == "U") print "U", f, $NF; else if ($(NF - 1) ~ /^[TDBRWVGSCiu]$/) print "D", f, $NF }' \
    >"$stage/lib-syms.txt"

# worker_objects ROOTS OBJ...: the objects among OBJ that the symbols in
# the file ROOTS need, and what those need in turn, as the linker would
# pull them from an archive: a worker linked with only these can call
# what the exercise's real code calls and nothing else of the library.
worker_objects() {
    local roots=$1; shift
    printf '%s\n' "$@" | awk -v roots="$roots" -v syms="$stage/lib-syms.txt" '
        { ok[$0] = 1 }
        END {
            while ((getline line < syms) > 0) {
                split(line, f, " ")
                if (!(f[2] in ok)) continue
                if (f[1] == "D") { if (!(f[3] in def)) def[f[3]] = f[2] }
                else uses[f[2]] = uses[f[2]] " " f[3]
            }
            n = 0
            while ((getline s < roots) > 0) if (s != "") q[++n] = s
            for (i = 1; i <= n; i++) {
                s = q[i]
                if (!(s in def) || (def[s] in got)) continue
                o = def[s]; got[o] = 1; print o
                k = split(uses[o], u, " ")
                for (j = 1; j <= k; j++) q[++n] = u[j]
            }
        }'
}

for cfile in $(exercise_confs); do
    id=$(basename "$(dirname "$cfile")") e=$stage/ex/$id
    mkdir -p "$e"
    printf '%s\n' "$graded" | awk -v id="$id" '$1 == id { print $2 }' >"$e/files.txt"
    conf "$cfile" suite | tr ', ' '\n\n' | grep -v '^$' >"$e/suites.txt"
    {
        printf 'IMPLS=%q\n' "$(conf "$cfile" impls)"
        printf 'ASAN=%q\n' "$([ "$(conf "$cfile" asan)" = no ] && echo 0 || echo 1)"
        [ "$(conf "$cfile" count)" = yes ] && echo "COUNT=1"
    } >"$e/conf.sh"
    # The judge's two sides, from the description of the graded functions.
    src=$(grep '\.c$' "$e/files.txt" | head -n 1)
    base=$(basename "${src:-none}" .c)
    def="" links=()
    if [ "$(conf "$cfile" worker)" = mpi ]; then
        # An MPI operation (exercise 14): the judge is the suite itself,
        # its worker one MPI rank (judge/mpi_worker.c) that mpirun starts.
        # Without Open MPI's headers here the exercise cannot be built at
        # all: its driver says so (0 points, the reason), the rest grade.
        if "$CC" $cflags -I"$CODE/include" -I"$CODE" -c "$here/judge/mpi_worker.c" -o "$e/mpi_worker.o" >"$stage/cc.log" 2>&1; then
            echo "WORKER=mpi" >>"$e/conf.sh"
        else
            printf 'WORKER=mpi\nWORKER_MISSING=%q\n' "this grader cannot build MPI programs (no Open MPI development files: libopenmpi-dev, pkg-config ompi-c)" >>"$e/conf.sh"
        fi
    elif [ "$(conf "$cfile" worker)" = opencl ]; then
        # An OpenCL kernel (exercise 08): the judge is the suite with the
        # proxies of the registry's OpenCL functions (calls/reduce.def),
        # its worker judge/cl_worker.c, where PoCL compiles and runs the
        # student's kernel.
        jflags=(-I"$here/judge" -I"$CODE/include" -I"$CODE" -DNL_CALLS_DEF="\"$here/judge/calls/reduce.def\"")
        cc_quiet $cflags "${jflags[@]}" -DNL_JUDGE_EXEC=nl_cl_exec_worker -DNL_JUDGE_OPENCL -c "$here/judge/proxy.c" -o "$e/proxy.o"
        cc_quiet $cflags "${jflags[@]}" -c "$here/judge/cl_judge.c" -o "$e/cl_judge.o"
        cc_quiet $cflags "${jflags[@]}" -c "$here/judge/cl_worker.c" -o "$e/cl_worker.o"
        echo "WORKER=opencl" >>"$e/conf.sh"
    elif [ -n "$src" ] && ! grep -q "^$base[[:space:]]" "$here/judge/calls/in-process.txt"; then
        for d in "$here/judge/calls" "$(dirname "$CODE")/calls"; do
            [ -f "$d/$base.def" ] && { def=$(cd "$d" && pwd)/$base.def; break; }
        done
        [ -n "$def" ] || { echo "grade: exercise $id grades $src but no scripts/grading/judge/calls/$base.def describes its functions (CONTRIBUTING.md)" >&2; exit 2; }
        # Library files the worker holds instead of the judge (calls.h).
        for l in $(sed -n 's|^// @worker-links \(.*\)\.c$|\1.o|p' "$def"); do
            [ -f "$BUILD/obj/code/$l" ] || { echo "grade: $def links $l into the worker, but $BUILD/obj/code/$l is not built" >&2; exit 2; }
            links+=("$l")
        done
    fi
    # The library less the exercise's own files and those its worker holds.
    unset skip; declare -A skip=()
    while read -r f; do skip[${f%.c}.o]=1; done <"$e/files.txt"
    for f in "${links[@]}"; do skip[$f]=1; done
    keep=()
    for o in "${lib_objs[@]}"; do
        k=${o#"$BUILD/obj/code/"}; k=${k#"$stage/starter-obj/"}
        [ -n "${skip[$k]:-}" ] || keep+=("$o")
    done
    ar rcs "$e/lib.a" "${keep[@]}" || exit 2
    if [ -n "$def" ]; then
        jflags=(-I"$here/judge" -I"$CODE/include" -I"$CODE" -I"$CODE/$(dirname "$src")" -DNL_CALLS_DEF="\"$def\"")
        cc_quiet $cflags "${jflags[@]}" -c "$here/judge/proxy.c" -o "$e/proxy.o"
        cc_quiet $cflags "${jflags[@]}" -c "$here/judge/worker.c" -o "$e/worker.o"
        if [ ${#links[@]} -gt 0 ]; then
            mv "$e/worker.o" "$e/worker-main.o"
            ld -r -o "$e/worker.o" "$e/worker-main.o" "${links[@]/#/$BUILD/obj/code/}" || exit 2
            rm -f "$e/worker-main.o"
        fi
        # -fPIC -fsemantic-interposition: the file's own calls of a graded
        # function go through its symbol (no inlining of the starter's stub),
        # so they too reach the proxy.
        cc_quiet $cflags $(isa_flags "$src") -fPIC -fsemantic-interposition "${jflags[@]}" \
            -c "$stage/starters/$id/$base.c" -o "$e/shell.o"
        weak=()
        for f in $(sed -n 's/^NL_CALL(.*, *\([A-Za-z_0-9]*\))$/\1/p; s/^NL_CALL_VOID(\([A-Za-z_0-9]*\))$/\1/p' "$def"); do
            weak+=(--weaken-symbol="$f")
        done
        objcopy "${weak[@]}" "$e/shell.o" || exit 2
        echo "JUDGE=1" >>"$e/conf.sh"
    fi
    # What the real code calls and defines: the most an answer may.
    printf '%s\n' $SAFE_CALLS $(conf "$cfile" allow) >"$e/allowed-undef.txt"
    : >"$e/allowed-def.txt"
    while read -r src; do
        case $src in *.c) ;; *) continue ;; esac
        grep -q '^WORKER_MISSING=' "$e/conf.sh" && continue
        cc_quiet $cflags $(isa_flags "$src") -I"$CODE/include" -I"$CODE" -I"$CODE/$(dirname "$src")" \
            -c "$CODE/$src" -o "$e/real.o"
        nm -u "$e/real.o" | awk '{ print $NF }' | sed 's/@.*//' >>"$e/allowed-undef.txt"
        nm -g --defined-only "$e/real.o" | awk '{ print $NF }' >>"$e/allowed-def.txt"
        rm -f "$e/real.o"
    done <"$e/files.txt"
    # The worker's library (policy.sh is defence in depth; this is what
    # holds without it): what the real code and `allow` may call, and what
    # the worker's own main and the library files it holds need.
    mains=()
    for o in "$e/worker.o" "$e/mpi_worker.o" "$e/cl_worker.o"; do [ -f "$o" ] && mains+=("$o"); done
    [ ${#mains[@]} -eq 0 ] || mains+=("$c/obj/judge/wire.o")
    { cat "$e/allowed-undef.txt"; [ ${#mains[@]} -eq 0 ] || nm -u "${mains[@]}" | awk 'NF { print $NF }' | sed 's/@.*//'; } >"$e/roots.txt"
    worker_objects "$e/roots.txt" "${keep[@]}" >"$e/worker-objs.txt"
    rm -f "$e/worker-lib.a"
    # shellcheck disable=SC2046
    ar rcs "$e/worker-lib.a" $(cat "$e/worker-objs.txt") || exit 2
    # `forbid`: functions the worker's code may link but the answer must
    # not call (11: the unfused pair's kernels), each wrapped (ld --wrap)
    # by a function that tells the judge which one was called.
    forbid=$(conf "$cfile" forbid)
    if [ -n "$forbid" ] && [ -f "$e/worker.o" ]; then
        k=0
        for f in $forbid; do printf 'void nl_w_forbidden(unsigned k);\nvoid __wrap_%s(void);\nvoid __wrap_%s(void) { nl_w_forbidden(%d); }\n' "$f" "$f" "$k"; k=$((k + 1)); done >"$e/forbid.c"
        cc_quiet $cflags -c "$e/forbid.c" -o "$e/forbid.o"
        printf 'FORBID=%q\nFORBID_WHY=%q\n' "$forbid" "$(conf "$cfile" forbid_message)" >>"$e/conf.sh"
    fi
    while read -r s; do
        [ -f "$SUITES/check_$s.c" ] || { echo "grade: $SUITES/check_$s.c does not exist ($cfile: suite = $s)" >&2; exit 2; }
        [ -f "$c/obj/suites/check_$s.o" ] ||
            cc_quiet $cflags -Itests/harness -c "$SUITES/check_$s.c" -o "$c/obj/suites/check_$s.o"
    done <"$e/suites.txt"
done
chmod -R a+rX "$stage"
