/*
 * ember_plugin.h -- the stable C ABI between the Ember core and its plugins.
 *
 * A plugin is a shared library that exports exactly one symbol,
 * `ember_plugin_init` (see EMBER_PLUGIN_INIT_SYMBOL). The core dlopen()s it,
 * calls the entry point with a table of host services, and receives a table
 * describing the plugin. Tensors cross the boundary as DLPack `DLTensor`s;
 * no C++ object ever does.
 *
 * Note [ABI versioning]: the version rules.
 *   - EMBER_ABI_VERSION_MAJOR changes only when an existing field or function
 *     changes meaning or position. Host and plugin must agree on the major;
 *     a plugin of another major is refused before any of its functions other
 *     than the entry point is called.
 *   - EMBER_ABI_VERSION_MINOR grows when a field is appended to a struct, a
 *     struct or an enum value is added, or an extension type is defined. The
 *     session runs at min(host minor, plugin minor).
 *   - Every struct that crosses the boundary starts with `struct_size`, set by
 *     whoever fills the struct to the sizeof() it was compiled with. A reader
 *     never touches a field that lies at or past the writer's struct_size;
 *     such a field takes its documented default. Structs only grow at the end;
 *     tests pin sizes and offsets of every minor (tests/abi/v1_<minor>_layout.txt;
 *     sdk/CHANGELOG.md lists every bump).
 *   - Optional features hang off `extension` pointers as a chain of
 *     ember_extension records; a reader skips types it does not know.
 *   - The op catalogue (sdk/docs/ops.md) is part of the ABI: each op carries
 *     the minor that introduced it. A core skips, with a warning, a kernel
 *     for an op it does not know and loads the plugin's other kernels (1.1;
 *     a 1.0 core quarantines the plugin), so a plugin that must also load
 *     into older cores registers an op only if host->abi_minor is at least
 *     the op's minor.
 *   - EMBER_STRUCT_SIZE(type, last_field) is the size of a struct up to and
 *     including a field; the EMBER_*_SIZE_V1_0 constants at the end of this
 *     header state every struct's ABI 1.0 size with it. A reader checks
 *     `s->struct_size >= EMBER_STRUCT_SIZE(type, field)` before it touches a
 *     field added after 1.0.
 *
 * Errors: every fallible call returns `ember_status*`. NULL means success.
 * A non-NULL status is created with ember_host_api.status_create and is owned
 * by whoever receives it (normally the core, which destroys it). A plugin must
 * never abort, exit or let a C++ exception escape: it returns a status.
 *
 * Threading: the core calls plugin functions from any thread. A kernel or a
 * device function that is not marked thread-safe is serialised by the core
 * behind a per-plugin lock.
 */
#ifndef EMBER_PLUGIN_H_
#define EMBER_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EMBER_ABI_VERSION_MAJOR 1
#define EMBER_ABI_VERSION_MINOR 11

/* Bytes of `type` up to the end of `last_field`: the struct_size of a
 * writer whose struct ends at that field (see the version rules). */
#define EMBER_STRUCT_SIZE(type, last_field) (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* Name of the single exported entry point (see ember_plugin_init_fn). */
#define EMBER_PLUGIN_INIT_SYMBOL "ember_plugin_init"

#if defined(_WIN32)
#define EMBER_PLUGIN_EXPORT __declspec(dllexport)
#else
#define EMBER_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/*
 * DLPack 0.6 has no boolean type code; later DLPack versions define
 * kDLBool = 6 with bits = 8. Ember uses that value so that tensors exchange
 * correctly with newer DLPack consumers.
 */
#define EMBER_DL_BOOL 6

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

/* Category of a failure; the core maps it to an exception type. */
typedef enum ember_status_code {
  EMBER_STATUS_OK = 0,
  EMBER_STATUS_INVALID_ARGUMENT = 1, /* bad shapes, dtypes, attributes */
  EMBER_STATUS_OUT_OF_RANGE = 2,     /* index or dim outside its bounds */
  EMBER_STATUS_UNIMPLEMENTED = 3,    /* op, dtype or feature not provided */
  EMBER_STATUS_OUT_OF_MEMORY = 4,    /* allocation failed */
  EMBER_STATUS_UNAVAILABLE = 5,      /* device missing, lost or busy */
  EMBER_STATUS_INTERNAL = 6,         /* anything else */
  EMBER_STATUS_DEADLINE_EXCEEDED = 7 /* a timeout expired (ABI 1.3) */
} ember_status_code;

/* Opaque error object: a code and a UTF-8 message. Created by the host's
 * status_create, owned by the receiver. */
typedef struct ember_status ember_status;

/* ------------------------------------------------------------------------ */
/* Data types                                                                */
/* ------------------------------------------------------------------------ */

/* Element types. Values are stable; later minors may append new ones, so a
 * plugin must answer an unknown value with EMBER_STATUS_UNIMPLEMENTED. */
typedef enum ember_dtype {
  EMBER_DTYPE_BOOL = 0,
  EMBER_DTYPE_UINT8 = 1,
  EMBER_DTYPE_INT8 = 2,
  EMBER_DTYPE_INT16 = 3,
  EMBER_DTYPE_INT32 = 4,
  EMBER_DTYPE_INT64 = 5,
  EMBER_DTYPE_FLOAT16 = 6,
  EMBER_DTYPE_BFLOAT16 = 7,
  EMBER_DTYPE_FLOAT32 = 8,
  EMBER_DTYPE_FLOAT64 = 9
} ember_dtype;

/* Number of dtypes defined by ABI v1.0. */
#define EMBER_DTYPE_COUNT_V1_0 10

/* ------------------------------------------------------------------------ */
/* Extensions                                                                */
/* ------------------------------------------------------------------------ */

/* Kinds of optional extension records. */
typedef enum ember_extension_type {
  EMBER_EXTENSION_CODEGEN = 1,     /* fused-kernel compilation (ABI 1.2) */
  EMBER_EXTENSION_PROFILING = 2,   /* device time of kernels (ABI 1.5) */
  EMBER_EXTENSION_COLLECTIVES = 3, /* collective engines (ABI 1.3) */
  EMBER_EXTENSION_NATIVE_HANDLES = 4 /* native device handles (ABI 1.3) */
} ember_extension_type;

/* Header of every extension record. A concrete extension struct starts with
 * this header and is found by walking `next` until `type` matches. */
typedef struct ember_extension {
  size_t struct_size;                  /* sizeof the concrete extension */
  ember_extension_type type;           /* which extension this is */
  const struct ember_extension* next;  /* next record, or NULL */
} ember_extension;

/* ------------------------------------------------------------------------ */
/* Op attributes and kernel calls                                            */
/* ------------------------------------------------------------------------ */

/* Kind of value an attribute holds. */
typedef enum ember_attr_kind {
  EMBER_ATTR_INT = 0,   /* int_value */
  EMBER_ATTR_FLOAT = 1, /* float_value */
  EMBER_ATTR_BOOL = 2,  /* int_value, 0 or 1 */
  EMBER_ATTR_INTS = 3   /* ints[0 .. num_ints) */
} ember_attr_kind;

/* A named, non-tensor argument of an op (dims, keepdim, fill value, seed).
 * The op catalogue (sdk/docs/ops.md) names each op's attributes. */
typedef struct ember_attr {
  size_t struct_size;   /* sizeof(ember_attr) of the writer */
  const char* name;     /* attribute name; borrowed for the call */
  ember_attr_kind kind; /* which value field is meaningful */
  int64_t int_value;    /* for INT and BOOL */
  double float_value;   /* for FLOAT */
  const int64_t* ints;  /* for INTS; borrowed for the call */
  int64_t num_ints;     /* length of ints */
} ember_attr;

/* Opaque stream handle; NULL is the device's default stream. */
typedef struct ember_stream_s* ember_stream_t;
/* Opaque event handle. */
typedef struct ember_event_s* ember_event_t;

struct ember_kernel_call;

/* Host callback that hands a kernel temporary device memory. The memory is
 * valid until the kernel returns (for asynchronous devices: until the work
 * the kernel enqueued on call->stream completes). */
typedef ember_status* (*ember_scratch_fn)(const struct ember_kernel_call* call,
                                          size_t size, void** ptr /* out */);

/* Everything a kernel needs for one call. Output tensors are allocated by
 * the core with the shape and dtype the op catalogue prescribes; a kernel
 * only computes. Elementwise ops receive inputs already broadcast (expanded,
 * stride 0) to the output shape and, unless the catalogue says otherwise,
 * already converted to the dispatch dtype. Tensors may be non-contiguous.
 * Outputs never partially overlap inputs; they may be identical to an input
 * (in-place ops). */
typedef struct ember_kernel_call {
  size_t struct_size;            /* sizeof(ember_kernel_call) of the core */
  const ember_extension* extension; /* optional records, or NULL */
  const char* op_name;           /* catalogue name, e.g. "add" */
  int32_t device_index;          /* device ordinal of all tensors */
  ember_stream_t stream;         /* stream to enqueue on; NULL = default */
  const DLTensor* inputs;        /* num_inputs tensors; borrowed */
  int64_t num_inputs;
  DLTensor* outputs;             /* num_outputs tensors; data to be written */
  int64_t num_outputs;
  const ember_attr* attrs;       /* num_attrs attributes; borrowed */
  int64_t num_attrs;
  ember_scratch_fn allocate_scratch; /* temporary memory, see above */
  void* host_context;            /* opaque to the plugin; used by callbacks */
} ember_kernel_call;

/* A kernel. `kernel_data` is the pointer given at registration. */
typedef ember_status* (*ember_kernel_fn)(const ember_kernel_call* call,
                                         void* kernel_data);

/* Flags for ember_kernel_registration.flags. */
#define EMBER_KERNEL_THREAD_SAFE 0x1u /* may run concurrently with itself */

/* One kernel for one (op, dtype) pair on the plugin's device type. The
 * dispatch dtype of an op is named by the catalogue (for most ops the dtype
 * of the first input; for factories the output's). */
typedef struct ember_kernel_registration {
  size_t struct_size;               /* sizeof of the plugin's struct */
  const ember_extension* extension; /* optional records, or NULL */
  const char* op_name;              /* catalogue name; copied by the host */
  ember_dtype dtype;                /* dispatch dtype this kernel serves */
  ember_kernel_fn kernel;           /* the kernel */
  void* kernel_data;                /* passed back to every call; may be NULL */
  uint32_t flags;                   /* EMBER_KERNEL_* flags */
} ember_kernel_registration;

/* Question "can you run this?" asked through ember_device_api.supports_op. */
typedef struct ember_op_query {
  size_t struct_size;
  const ember_extension* extension;
  const char* op_name;
  const ember_dtype* dtypes; /* dtype of every tensor argument, inputs first */
  int64_t num_dtypes;
  const ember_attr* attrs;
  int64_t num_attrs;
} ember_op_query;

/* ------------------------------------------------------------------------ */
/* Host services                                                             */
/* ------------------------------------------------------------------------ */

typedef enum ember_log_level {
  EMBER_LOG_TRACE = 0,
  EMBER_LOG_DEBUG = 1,
  EMBER_LOG_INFO = 2,
  EMBER_LOG_WARN = 3,
  EMBER_LOG_ERROR = 4
} ember_log_level;

/* Opaque handle through which a plugin registers its kernels. Valid only
 * during ember_plugin.register_kernels. */
typedef struct ember_registrar ember_registrar;

/* Functions the core offers to plugins. The table lives as long as the core
 * and may be kept by the plugin. */
typedef struct ember_host_api {
  size_t struct_size;  /* sizeof(ember_host_api) of the core */
  uint32_t abi_major;  /* EMBER_ABI_VERSION_MAJOR of the core */
  uint32_t abi_minor;  /* EMBER_ABI_VERSION_MINOR of the core */
  const ember_extension* extension; /* optional records, or NULL */

  /* Creates an error status; `message` is copied. Never returns NULL for a
   * code other than EMBER_STATUS_OK. */
  ember_status* (*status_create)(ember_status_code code, const char* message);
  /* Destroys a status the plugin received and does not pass on. */
  void (*status_destroy)(ember_status* status);

  /* Writes a line to the core's log under the plugin's name. */
  void (*log)(ember_log_level level, const char* plugin_name,
              const char* message);

  /* Registers one kernel; see ember_kernel_registration. Fails for a dtype
   * the ABI does not define, a NULL function or a second kernel for one
   * (op, dtype); any failure quarantines the plugin. A kernel for an op the
   * core's catalogue does not know is skipped: the call returns NULL,
   * registers nothing and logs a warning naming the plugin and the op
   * (ABI 1.1; a 1.0 core fails it). */
  ember_status* (*register_kernel)(ember_registrar* registrar,
                                   const ember_kernel_registration* kernel);

  /* ABI 1.1: check struct_size >= EMBER_STRUCT_SIZE(ember_host_api,
   * status_message) before calling either. They read a status the plugin
   * received from the host (from allocate_scratch, say) without taking it:
   * the status stays the plugin's to destroy or return. */
  /* The status's code; EMBER_STATUS_OK for NULL. */
  ember_status_code (*status_code)(const ember_status* status);
  /* The status's UTF-8 message, "" for NULL; owned by the status and valid
   * until the status is destroyed. */
  const char* (*status_message)(const ember_status* status);
} ember_host_api;

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

/* Properties of one device. Strings are owned by the plugin and live as
 * long as the plugin is loaded. */
typedef struct ember_device_properties {
  size_t struct_size;        /* set by the core before the call */
  const char* name;          /* marketing name, e.g. "Intel Xeon" */
  uint64_t total_memory;     /* bytes; 0 if unknown */
  uint32_t compute_units;    /* cores, SMs or CUs; 0 if unknown */
  uint32_t reserved0;        /* zero */
} ember_device_properties;

/* Direction of a copy. */
typedef enum ember_copy_kind {
  EMBER_COPY_HOST_TO_DEVICE = 0,
  EMBER_COPY_DEVICE_TO_HOST = 1,
  EMBER_COPY_DEVICE_TO_DEVICE = 2
} ember_copy_kind;

/* A contiguous byte copy. Device pointers are those returned by allocate;
 * offsets are in bytes and need not be aligned. */
typedef struct ember_copy_args {
  size_t struct_size;
  const ember_extension* extension;
  ember_copy_kind kind;
  int32_t src_device;  /* ordinal of the source (ignored for host) */
  int32_t dst_device;  /* ordinal of the destination (ignored for host) */
  const void* src;     /* base pointer */
  size_t src_offset;   /* bytes added to src */
  void* dst;           /* base pointer */
  size_t dst_offset;   /* bytes added to dst */
  size_t num_bytes;    /* may be 0 */
  ember_stream_t stream; /* NULL = default stream; copies to or from the host
                            complete before the function returns */
} ember_copy_args;

/* Flags for ember_device_api.thread_safety. */
#define EMBER_DEVICE_ALLOCATOR_THREAD_SAFE 0x1u /* allocate/deallocate */
#define EMBER_DEVICE_COPY_THREAD_SAFE 0x2u      /* copy */
#define EMBER_DEVICE_STREAM_THREAD_SAFE 0x4u    /* stream and event calls */

/* The device a plugin provides. Every function pointer is required unless
 * it says "optional", with the default the core applies when it is NULL. */
typedef struct ember_device_api {
  size_t struct_size;               /* sizeof of the plugin's struct */
  const ember_extension* extension; /* optional records, or NULL */

  /* Device type name the user writes ("cpu", "cuda", "xpu"): lower case
   * letters, digits and '_'. Two plugins may not claim the same name. */
  const char* device_type;
  /* DLPack device type stamped on this device's tensors. */
  DLDeviceType dl_device_type;
  /* EMBER_DEVICE_* flags. */
  uint32_t thread_safety;

  /* Number of devices present; may be 0 (the plugin still loads). */
  ember_status* (*device_count)(int32_t* count /* out */);
  /* Fills props (whose struct_size the core has set). */
  ember_status* (*device_properties)(int32_t device,
                                     ember_device_properties* props /* out */);

  /* Raw allocation; the core caches blocks on top. `alignment` is a power
   * of two >= 64. A request of 0 bytes may return NULL or a unique pointer. */
  ember_status* (*allocate)(int32_t device, size_t num_bytes, size_t alignment,
                            void** ptr /* out */);
  /* Returns memory obtained from allocate. */
  ember_status* (*deallocate)(int32_t device, void* ptr);

  /* Copies bytes; see ember_copy_args. */
  ember_status* (*copy)(const ember_copy_args* args);

  /* Optional streams (default when NULL: the device has one in-order
   * stream, and create returns NULL). */
  ember_status* (*stream_create)(int32_t device, ember_stream_t* stream /* out */);
  ember_status* (*stream_destroy)(int32_t device, ember_stream_t stream);
  ember_status* (*stream_synchronize)(int32_t device, ember_stream_t stream);

  /* Optional events (default when NULL: synchronous device, events are
   * no-ops). */
  ember_status* (*event_create)(int32_t device, ember_event_t* event /* out */);
  ember_status* (*event_destroy)(int32_t device, ember_event_t event);
  ember_status* (*event_record)(int32_t device, ember_event_t event,
                                ember_stream_t stream);
  ember_status* (*event_wait)(int32_t device, ember_event_t event,
                              ember_stream_t stream);
  ember_status* (*event_synchronize)(int32_t device, ember_event_t event);

  /* Waits for all work on the device. */
  ember_status* (*synchronize)(int32_t device);

  /* Optional: answers whether the plugin can run op with these dtypes and
   * attributes. Default when NULL: yes iff a kernel is registered for the
   * op's dispatch dtype. */
  ember_status* (*supports_op)(const ember_op_query* query,
                               int32_t* supported /* out: 0 or 1 */);

  /* ABI 1.1. Optional: sets how many host threads this plugin's kernels may
   * use at once, the calling thread included (intra-op parallelism, what
   * ember::set_num_threads sets), from the next kernel on. The core passes
   * num_threads >= 1. Default when NULL: the plugin runs its kernels without
   * host threads of its own, and the setting does not concern it. Called
   * like device_count: never concurrently with another function of the
   * plugin that is not thread-safe, but possibly while kernels run. */
  ember_status* (*set_num_threads)(int32_t num_threads);
  /* ABI 1.1. Optional: the thread count set_num_threads last set, or the
   * plugin's default before any call (>= 1). Default when NULL: 1. */
  ember_status* (*get_num_threads)(int32_t* num_threads /* out */);
} ember_device_api;

/* ------------------------------------------------------------------------ */
/* The plugin                                                                */
/* ------------------------------------------------------------------------ */

/* What a plugin tells the core about itself. The core zero-fills it and sets
 * struct_size before calling ember_plugin_init. Strings and tables must stay
 * valid for the life of the process: the core never unloads a library whose
 * code has run. */
typedef struct ember_plugin {
  size_t struct_size;  /* set by the core: how much the plugin may write */
  uint32_t abi_major;  /* EMBER_ABI_VERSION_MAJOR the plugin was built with */
  uint32_t abi_minor;  /* EMBER_ABI_VERSION_MINOR the plugin was built with */
  const ember_extension* extension; /* optional records, or NULL */

  const char* name;    /* short unique name, e.g. "cpu" */
  const char* version; /* the plugin's own version string */

  /* The device this plugin provides, or NULL for a plugin without one. */
  const ember_device_api* device;

  /* Called once after the versions were accepted: registers the plugin's
   * kernels through host->register_kernel. An error here quarantines the
   * plugin and discards every kernel it registered. Optional since ABI 1.1
   * (a 1.0 core refuses NULL): NULL means the plugin registers no kernels,
   * as a code generator or a collective engine without a device does. */
  ember_status* (*register_kernels)(ember_registrar* registrar);

  /* Optional: called once if the core refuses the plugin after a successful
   * init (the library then stays loaded, unused). Never called at process
   * exit. */
  void (*shutdown)(void);
} ember_plugin;

/* ------------------------------------------------------------------------ */
/* Code generation (ABI 1.2)                                                 */
/* ------------------------------------------------------------------------ */

/* A code generator is an ember_codegen_extension record on the chain of
 * ember_plugin.extension. It compiles one fused kernel at a time, handed
 * over as kernel IR: a versioned, serialized loop nest (EKIR, JSON text;
 * sdk/docs/kernel-ir.md), never source text. The core owns capture,
 * fusion, scheduling of kernels and the disk cache; the generator owns the
 * kernel's own schedule (vectorisation, threads, tiling). A plugin may
 * carry only this extension, for a device type another plugin provides. */

/* What a compile call writes through ember_codegen_output. */
typedef enum ember_codegen_artifact {
  EMBER_CODEGEN_BINARY = 0, /* the loadable blob; required */
  EMBER_CODEGEN_SOURCE = 1, /* generated source, for logs and traces */
  EMBER_CODEGEN_LOG = 2,    /* compiler messages, warnings included */
  EMBER_CODEGEN_TEXT = 3    /* fingerprint text (from fingerprint) */
} ember_codegen_artifact;

/* Host-owned sink for bytes a generator produces. `write` may be called any
 * number of times per artifact; the pieces are joined in order. The data is
 * copied before write returns. */
typedef struct ember_codegen_output {
  size_t struct_size;
  ember_status* (*write)(struct ember_codegen_output* out,
                         ember_codegen_artifact artifact, const void* data,
                         size_t size);
  void* host_context; /* opaque to the plugin */
} ember_codegen_output;

/* A kernel the generator loaded from a blob. */
typedef struct ember_codegen_kernel_s* ember_codegen_kernel_t;

/* One launch of a loaded kernel. `buffers` follow the kernel IR's buffer
 * list; each buffer's element 0 is at data + byte_offset, and the IR's
 * offsets and strides count elements from there (shape and strides of the
 * DLTensor describe the buffer for checks, the IR's indexing is what the
 * kernel uses). `params` are the IR's int64 launch parameters p0, p1, ... */
typedef struct ember_codegen_launch_args {
  size_t struct_size;
  const ember_extension* extension;
  int32_t device_index;
  ember_stream_t stream;     /* NULL = default stream */
  DLTensor* buffers;         /* borrowed for the call */
  int64_t num_buffers;
  const int64_t* params;     /* borrowed for the call */
  int64_t num_params;
  /* ABI 1.4: the host threads the kernel may use, the calling thread
   * included: the count ember::set_num_threads last set. 0, or a 1.3 core's
   * shorter struct: never set, and the generator's default applies (for
   * the CPU, the same environment variables the CPU plugin reads). A
   * generator for a device without host threads ignores it. */
  int32_t num_threads;
} ember_codegen_launch_args;

/* Flags for ember_codegen_extension.thread_safety. */
#define EMBER_CODEGEN_COMPILE_THREAD_SAFE 0x1u /* compile, fingerprint */
#define EMBER_CODEGEN_LAUNCH_THREAD_SAFE 0x2u  /* load, launch, unload */

typedef struct ember_codegen_extension {
  ember_extension header; /* type EMBER_EXTENSION_CODEGEN */

  /* Device type whose tensors the kernels read and write ("cpu"). */
  const char* device_type;
  /* Space-separated lists: the EKIR versions the generator reads ("1.0"),
   * the EKIR body ops and the dtype names it compiles. The core hands over
   * only kernels within them, and runs anything else eagerly. */
  const char* ir_versions;
  const char* ops;
  const char* dtypes;
  /* EMBER_CODEGEN_* thread-safety flags; the core serialises the rest. */
  uint32_t thread_safety;

  /* Writes, as EMBER_CODEGEN_TEXT, everything besides the IR that decides
   * the binary: compiler identity and version, flags, ISA features, driver.
   * The core puts it into the cache key. UNAVAILABLE when the generator
   * cannot work here (no compiler found): compiled code then runs eagerly,
   * with this status's message as the reason. */
  ember_status* (*fingerprint)(ember_codegen_output* out);

  /* Compiles one kernel. `ir` is EKIR JSON text of `ir_size` bytes;
   * `options` a NUL-terminated JSON object (keys the generator does not
   * know are ignored). Writes EMBER_CODEGEN_BINARY, and SOURCE and LOG
   * where it has them. A kernel it cannot compile is an UNIMPLEMENTED or
   * INVALID_ARGUMENT status saying why; the core then runs it eagerly. */
  ember_status* (*compile)(const char* ir, size_t ir_size, const char* options,
                           ember_codegen_output* out);

  /* Loads a blob compile wrote (possibly in another process, from the
   * core's disk cache). A blob it does not recognise is INVALID_ARGUMENT. */
  ember_status* (*load)(const void* blob, size_t blob_size,
                        ember_codegen_kernel_t* kernel /* out */);
  /* Runs a loaded kernel on the stream; asynchronous devices enqueue. */
  ember_status* (*launch)(ember_codegen_kernel_t kernel,
                          const ember_codegen_launch_args* args);
  /* Releases a loaded kernel. */
  ember_status* (*unload)(ember_codegen_kernel_t kernel);
} ember_codegen_extension;

/* ------------------------------------------------------------------------ */
/* Collective engines (ABI 1.3)                                              */
/* ------------------------------------------------------------------------ */

/* A collective engine (Gloo, NCCL) is an ember_collectives_extension record
 * on the chain of ember_plugin.extension, usually of a plugin without a
 * device. The core owns process groups, the key-value store, sequence
 * numbers, validation across ranks, timeouts and the worker thread that
 * calls the engine; the engine moves bytes between ranks. Every rank calls
 * the same collectives in the same order with the same sequence numbers. */

/* Reductions. The core turns an average into a sum and a division. */
typedef enum ember_reduce_op {
  EMBER_REDUCE_SUM = 0,
  EMBER_REDUCE_PRODUCT = 1,
  EMBER_REDUCE_MIN = 2,
  EMBER_REDUCE_MAX = 3
} ember_reduce_op;

typedef enum ember_collective_kind {
  EMBER_COLLECTIVE_ALL_REDUCE = 0,     /* output (== input) reduced in place */
  EMBER_COLLECTIVE_BROADCAST = 1,      /* output (== input) from rank `root` */
  EMBER_COLLECTIVE_ALL_GATHER = 2,     /* output = every rank's input, in rank order */
  EMBER_COLLECTIVE_REDUCE_SCATTER = 3, /* output = this rank's block of the reduced input */
  EMBER_COLLECTIVE_REDUCE = 4,         /* output (== input) reduced on `root` only */
  EMBER_COLLECTIVE_GATHER = 5,         /* root's output = every rank's input */
  EMBER_COLLECTIVE_SCATTER = 6,        /* output = block `rank` of root's input */
  EMBER_COLLECTIVE_ALL_TO_ALL = 7,     /* block j of input goes to rank j */
  EMBER_COLLECTIVE_SEND = 8,           /* input to rank `peer` */
  EMBER_COLLECTIVE_RECV = 9,           /* output from rank `peer` */
  EMBER_COLLECTIVE_BARRIER = 10
} ember_collective_kind;

/* Host-owned sink for bytes the host hands a plugin (a store value). */
typedef struct ember_byte_sink {
  size_t struct_size;
  ember_status* (*write)(struct ember_byte_sink* sink, const void* data, size_t size);
  void* context; /* the plugin's */
} ember_byte_sink;

/* The process group's store, lent to an engine to bootstrap: keys are
 * already scoped to the group. Thread-safe; valid until the communicator is
 * destroyed. `get` waits up to timeout_ms for the key (DEADLINE_EXCEEDED
 * naming it after that) and writes the value through `out`. */
typedef struct ember_store_api {
  size_t struct_size;
  void* host_context; /* opaque to the plugin */
  ember_status* (*set)(void* host_context, const char* key, const void* value, size_t size);
  ember_status* (*get)(void* host_context, const char* key, int64_t timeout_ms, ember_byte_sink* out);
  ember_status* (*add)(void* host_context, const char* key, int64_t delta, int64_t* result /* out */);
} ember_store_api;

typedef struct ember_communicator_config {
  size_t struct_size;
  const ember_extension* extension;
  int32_t rank;
  int32_t world_size;
  const char* device_type;  /* device whose memory the operands live in */
  int32_t device_index;
  const char* hostname;     /* address to listen on, e.g. "127.0.0.1" */
  int64_t timeout_ms;       /* default for connecting and for each call */
  const ember_store_api* store;
} ember_communicator_config;

/* A communicator: one rank's membership of one process group. */
typedef struct ember_communicator_s* ember_communicator_t;

/* One collective. Tensors are contiguous, of one dtype, on the
 * communicator's device; the core checked their sizes against the kind
 * (all_gather: output holds world_size inputs; reduce_scatter and scatter:
 * input holds world_size outputs; all_to_all: equal blocks unless splits
 * are given). On ranks where a tensor plays no part (gather's output off
 * root, scatter's input off root) it is NULL. */
typedef struct ember_collective_call {
  size_t struct_size;
  const ember_extension* extension;
  ember_collective_kind kind;
  ember_reduce_op reduce_op;
  int32_t root;            /* broadcast, reduce, gather, scatter; the peer of send and recv */
  uint64_t sequence;       /* the group's count of calls; engines derive tags from it */
  uint32_t user_tag;       /* send and recv: the tag the caller chose */
  int64_t timeout_ms;      /* this call's */
  const DLTensor* input;
  DLTensor* output;
  /* all_to_all: world_size element counts per rank, or NULL for equal blocks. */
  const int64_t* input_splits;
  const int64_t* output_splits;
  ember_stream_t stream;   /* the device stream to order the call on; NULL = default */
} ember_collective_call;

typedef struct ember_collectives_extension {
  ember_extension header; /* type EMBER_EXTENSION_COLLECTIVES */

  const char* engine;       /* the name users pass to init_process_group, "gloo" */
  /* Space-separated device types whose memory the engine reads directly.
   * The core stages tensors of other devices through host memory. */
  const char* device_types;
  const char* dtypes;       /* space-separated dtype names it moves */

  /* Connects this rank to the others through config->store; blocks until
   * every rank joined or timeout_ms passed (DEADLINE_EXCEEDED naming the
   * ranks missing, where the engine can tell). */
  ember_status* (*create_communicator)(const ember_communicator_config* config,
                                       ember_communicator_t* communicator /* out */);
  /* Runs one collective and returns when this rank's part is done (an
   * asynchronous device: when it is enqueued on call->stream). A peer that
   * dies is UNAVAILABLE, a timeout DEADLINE_EXCEEDED; the message names the
   * peer where the engine knows it. Calls on one communicator come from
   * one thread at a time. */
  ember_status* (*run)(ember_communicator_t communicator, const ember_collective_call* call);
  /* May be called from any thread while run blocks: closes the connections
   * so that it returns UNAVAILABLE soon. The communicator is then unusable. */
  ember_status* (*abort)(ember_communicator_t communicator);
  ember_status* (*destroy_communicator)(ember_communicator_t communicator);
} ember_collectives_extension;

/* A device plugin's native handles (ABI 1.3), on the chain of
 * ember_plugin.extension beside its device: an engine of the same vendor
 * (NCCL for CUDA) enqueues on the device's streams through them. A device
 * without the record is served through host staging. */
typedef struct ember_native_handles_extension {
  ember_extension header; /* type EMBER_EXTENSION_NATIVE_HANDLES */
  const char* api;        /* "cuda", "hip", "opencl" */
  /* The native stream (cudaStream_t, hipStream_t, cl_command_queue) behind
   * an Ember stream of a device; NULL is the default stream. */
  ember_status* (*native_stream)(int32_t device_index, ember_stream_t stream, void** native /* out */);
  /* The native device ordinal, which may differ from Ember's index. */
  ember_status* (*native_device)(int32_t device_index, int64_t* ordinal /* out */);
} ember_native_handles_extension;

/* One stretch of device work a timed kernel call enqueued (ABI 1.5). A call
 * may give several (one per native kernel it launched) or one for all. */
typedef struct ember_kernel_activity {
  size_t struct_size;
  uint64_t correlation_id; /* the id kernel_begin was given */
  int32_t device_index;
  /* The native kernel's name, borrowed for the sink call; NULL: the op's. */
  const char* name;
  /* When the device began and finished the work, in nanoseconds of the
   * host's CLOCK_MONOTONIC (C++'s steady_clock on Linux): a plugin whose
   * device counts its own time converts, so host and device events share
   * one time line. */
  int64_t start_ns;
  int64_t end_ns;
} ember_kernel_activity;

typedef void (*ember_activity_sink)(void* context, const ember_kernel_activity* activity);

/* Device time of kernels (ABI 1.5), on the chain of ember_plugin.extension
 * beside a device: the profiler's device activities. A device without it is
 * profiled by host times alone. Every function may be called from any
 * thread; kernel_begin and kernel_end of one call come from the thread that
 * runs the kernel, around it. */
typedef struct ember_profiling_extension {
  ember_extension header; /* type EMBER_EXTENSION_PROFILING */
  /* A profiling session begins: time the kernel calls bracketed from now. */
  ember_status* (*start)(void);
  /* Around one kernel call of the core on (device_index, stream): the device
   * work the kernel enqueues between the two belongs to correlation_id. */
  ember_status* (*kernel_begin)(int32_t device_index, ember_stream_t stream, uint64_t correlation_id);
  ember_status* (*kernel_end)(int32_t device_index, ember_stream_t stream, uint64_t correlation_id);
  /* The session ends: waits for the timed work to finish, hands each
   * activity to sink on the calling thread, and forgets them. */
  ember_status* (*stop)(ember_activity_sink sink, void* context);
} ember_profiling_extension;

/* The entry point. Fills `plugin` (reading host->abi_* if it wants) and
 * returns NULL, or an error status. It must not call register_kernel. */
typedef ember_status* (*ember_plugin_init_fn)(const ember_host_api* host,
                                              ember_plugin* plugin /* out */);

/* ------------------------------------------------------------------------ */
/* ABI 1.0 struct sizes                                                      */
/* ------------------------------------------------------------------------ */

/* Each struct's size in ABI 1.0, up to its last 1.0 field: the smallest
 * struct_size a 1.0 writer sets, and all a 1.0 reader gives room for. */
#define EMBER_EXTENSION_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_extension, next)
#define EMBER_ATTR_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_attr, num_ints)
#define EMBER_KERNEL_CALL_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_kernel_call, host_context)
#define EMBER_KERNEL_REGISTRATION_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_kernel_registration, flags)
#define EMBER_OP_QUERY_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_op_query, num_attrs)
#define EMBER_HOST_API_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_host_api, register_kernel)
#define EMBER_DEVICE_PROPERTIES_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_device_properties, reserved0)
#define EMBER_COPY_ARGS_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_copy_args, stream)
#define EMBER_DEVICE_API_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_device_api, supports_op)
#define EMBER_PLUGIN_SIZE_V1_0 EMBER_STRUCT_SIZE(ember_plugin, shutdown)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EMBER_PLUGIN_H_ */
