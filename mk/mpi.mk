# mpi.mk — chapter 11: build/normlab-mpi, a separate program linked with
# Open MPI (pkg-config ompi-c), so that the normlab library and program
# never need MPI. code/mpi/ is left out of the library by the Makefile;
# here it is compiled with MPI's flags. Without Open MPI's development
# files nothing here is built, and tests/check_mpi_*.c say so when skipping.

MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
MPI_FOUND  := $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1)
MPI_SRC    := $(sort $(shell find code/mpi -name '*.c'))
MPI_OBJ    := $(MPI_SRC:%.c=$(BUILD)/obj/%.o)
NORMLAB_MPI := $(BUILD)/normlab-mpi

$(MPI_OBJ): ALL_CFLAGS += $(MPI_CFLAGS)

ifeq ($(MPI_FOUND),1)
$(NORMLAB_MPI): $(MPI_OBJ) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MPI_OBJ) $(LIB) $(MPI_LIBS) $(LDLIBS)

build: $(NORMLAB_MPI)
test-only memcheck: $(NORMLAB_MPI)

# Exercise 14's judged tests (tests/check_mpi_chan.c) run the grader's MPI
# worker (scripts/grading/judge/mpi_worker.c: one rank under seccomp)
# linked with the real chan_op.c; the grader links the student's instead.
# Without sanitizers' leak checks: a filtered rank cannot run LeakSanitizer.
ifneq ($(shell pkg-config --exists libseccomp 2>/dev/null && echo 1),)
MPI_WORKER := $(BUILD)/normlab-mpi-worker
$(BUILD)/obj/scripts/grading/judge/mpi_worker.o: scripts/grading/judge/mpi_worker.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -c $< -o $@
$(MPI_WORKER): $(BUILD)/obj/scripts/grading/judge/mpi_worker.o $(BUILD)/obj/code/mpi/chan_op.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS) -lseccomp $(LDLIBS)
build test-only memcheck: $(MPI_WORKER)
endif
else
$(NORMLAB_MPI):
	@echo "normlab-mpi needs Open MPI's C development files (libopenmpi-dev, found by" \
	      "pkg-config ompi-c); scripts/setup/deps.sh base installs them" >&2; exit 1
endif

.PHONY: mpi
## mpi — build/normlab-mpi (Open MPI); run it with mpirun -np P build/normlab-mpi --help
mpi: $(NORMLAB_MPI)

# Exercise 14 is graded like every other exercise: the sandboxed grader
# runs the student's chan_op.c in MPI ranks of their own under seccomp
# (scripts/grading/judge/mpi_worker.c) and judges their answers from the
# suite. This target is that grade, kept under the name the chapter used;
# it reads only the handout's own tree.
.PHONY: mpi-exercise
## mpi-exercise — exercise 14: the same as make grade EX=14 (chan_op.c in sandboxed MPI ranks, mpirun -np 1..4)
mpi-exercise:
	@$(MAKE) --no-print-directory grade EX=14

# The grader compiles a submitted code/mpi file with the library's flags;
# these give it mpi.h and Open MPI's libraries for the ranks' program.
GRADE_ENV += GRADE_CFLAGS='$(ALL_CFLAGS) $(MPI_CFLAGS)'
GRADE_ENV += GRADE_LDLIBS='$(LDLIBS) $(MPI_LIBS)'

.PHONY: mpi-scaling
## mpi-scaling — rerun chapter 11's tables: a sample run and errors vs offset into chapters/11-mpi.md, 1-4 ranks and all-reduce latency into notebook/11-mpi.md; on a quiet machine
mpi-scaling: $(NORMLAB_MPI)
	NORMLAB_MPI=$(NORMLAB_MPI) scripts/tools/mpi-scaling.sh chapters/11-mpi.md notebook/11-mpi.md
