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

$(NORMLAB_MPI): $(MPI_OBJ) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MPI_OBJ) $(LIB) $(MPI_LIBS) $(LDLIBS)

ifeq ($(MPI_FOUND),1)
build: $(NORMLAB_MPI)
test-only: $(NORMLAB_MPI)
endif

.PHONY: mpi
## mpi — build/normlab-mpi (Open MPI); run it with mpirun -np P build/normlab-mpi --help
mpi: $(NORMLAB_MPI)
