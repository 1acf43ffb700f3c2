/*
 * nrt-session: a runtime session driven one command per stdin line, so that
 * a test or a conformance scenario can interleave its calls with
 * `neuron-emu ctl` and with reads of sysfs. Built as build/bin/nrt-session
 * (the conformance runner's runtime steps) and as the shim tests' `session`. Every command answers exactly one line on
 * stdout that starts with the command's name (`wait` also says one "event ..." line per event first). Statuses are
 * printed as their NRT_* names.
 *
 *   init                  nrt_init                -> init STATUS visible=N
 *   close                 nrt_close               -> close done
 *   load NAME FILE [VNC]  nrt_load (VNC: -1)      -> load NAME STATUS vnc=V
 *   alloc NAME            tensor sets of device tensors for the model, inputs
 *                         filled (element i of input k = 100 (k + 1) + i)
 *                                                 -> alloc NAME STATUS
 *   exec NAME             nrt_execute             -> exec NAME STATUS
 *   outputs NAME          the output tensors      -> outputs NAME out=1,2,..
 *   unload NAME           nrt_unload, then frees the sets and tensors (the
 *                         model handle is kept when nrt_unload fails)
 *                                                 -> unload NAME STATUS
 *   memstats C            nrt_get_vnc_memory_stats -> memstats C STATUS used=U limit=L
 *   connect C             nrt_debug_client_connect -> connect C STATUS
 *   close_stream C        nrt_debug_client_connect_close -> close_stream C done
 *   read C                one read_one_event      -> read C STATUS [event]
 *   pollable C            poll(2) without waiting -> pollable C 0|1  (1: readable)
 *   wait C N              polls the stream and reads N events
 *                                                 -> event C <event> (x N), wait C got=N
 *   drain C               reads until not NRT_SUCCESS, checks that the first
 *                         element of event i is i
 *                                                 -> [order C broken at ...], drain C count=N in_order=0|1 end=STATUS
 *   exit                  exit(0) without nrt_close
 *   abort                 abort() (no core file)
 *   quit (or end of input) nrt_close, exit(0)
 *
 * Events print as format_event() does. Frees every payload.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <nrt/nrt_experimental.h>

#include <poll.h>
#include <sys/resource.h>

enum { max_models = 8, max_streams = 256, wait_ms = 20000 };

struct loaded {
    char name[64];
    nrt_model_t* model;
    uint32_t vnc;
    nrt_tensor_info_array_t* info;
    nrt_tensor_set_t* inputs;
    nrt_tensor_set_t* outputs;
    nrt_tensor_t** tensors;
};

static struct loaded models[max_models];
static int streams[max_streams];

static const char* name_of(NRT_STATUS s) { return nrt_get_status_as_str(s); }

static struct loaded* find_model(const char* name) {
    for (int i = 0; i < max_models; ++i) {
        if (models[i].model != NULL && strcmp(models[i].name, name) == 0) return &models[i];
    }
    return NULL;
}

static int* stream_slot(int core) { return core >= 0 && core < max_streams ? &streams[core] : NULL; }

static void fill_input(const nrt_tensor_info_t* ti, unsigned char* bytes, uint64_t k) {
    const size_t element = dtype_size(ti->dtype);
    const size_t n = element == 0 ? ti->size : ti->size / element;
    for (size_t i = 0; i < n; ++i) {
        const long long v = (long long)(100 * (k + 1) + i);
        switch (ti->dtype) {
        case NRT_DTYPE_FLOAT32: {
            const float f = (float)v;
            memcpy(bytes + i * 4, &f, 4);
            break;
        }
        case NRT_DTYPE_INT32:
        case NRT_DTYPE_UINT32: {
            const int32_t x = (int32_t)v;
            memcpy(bytes + i * 4, &x, 4);
            break;
        }
        case NRT_DTYPE_INT64:
        case NRT_DTYPE_UINT64: {
            const int64_t x = (int64_t)v;
            memcpy(bytes + i * 8, &x, 8);
            break;
        }
        default: bytes[i * (element == 0 ? 1 : element)] = (unsigned char)v; break;
        }
    }
}

static void release_tensors(struct loaded* m) {
    nrt_destroy_tensor_set(&m->inputs);
    nrt_destroy_tensor_set(&m->outputs);
    if (m->tensors != NULL && m->info != NULL) {
        for (uint64_t t = 0; t < m->info->tensor_count; ++t) nrt_tensor_free(&m->tensors[t]);
    }
    free(m->tensors);
    m->tensors = NULL;
}

static void cmd_load(const char* name, const char* path, int vnc) {
    struct loaded* slot = NULL;
    for (int i = 0; i < max_models && slot == NULL; ++i) {
        if (models[i].model == NULL) slot = &models[i];
    }
    size_t size = 0;
    char* bytes = read_whole_file(path, &size);
    if (slot == NULL || bytes == NULL) {
        SAY("load %s CANNOT_READ %s", name, path);
        free(bytes);
        return;
    }
    nrt_model_t* model = NULL;
    const NRT_STATUS s = nrt_load(bytes, size, vnc, -1, &model);
    free(bytes);
    if (s != NRT_SUCCESS) {
        SAY("load %s %s vnc=-1", name, name_of(s));
        return;
    }
    memset(slot, 0, sizeof *slot);
    snprintf(slot->name, sizeof slot->name, "%s", name);
    slot->model = model;
    nrt_model_info_t info;
    size_t got = 0;
    if (nrt_get_model_info(model, &info, sizeof info, &got) == NRT_SUCCESS) slot->vnc = info.vnc;
    SAY("load %s %s vnc=%u", name, name_of(s), (unsigned)slot->vnc);
}

static void cmd_alloc(const char* name) {
    struct loaded* m = find_model(name);
    if (m == NULL) {
        SAY("alloc %s NO_MODEL", name);
        return;
    }
    NRT_STATUS s = nrt_get_model_tensor_info(m->model, &m->info);
    if (s == NRT_SUCCESS) s = nrt_allocate_tensor_set(&m->inputs);
    if (s == NRT_SUCCESS) s = nrt_allocate_tensor_set(&m->outputs);
    if (s != NRT_SUCCESS) {
        SAY("alloc %s %s", name, name_of(s));
        return;
    }
    m->tensors = (nrt_tensor_t**)calloc(m->info->tensor_count, sizeof(nrt_tensor_t*));
    uint64_t k = 0;
    for (uint64_t t = 0; t < m->info->tensor_count && s == NRT_SUCCESS; ++t) {
        const nrt_tensor_info_t* ti = &m->info->tensor_array[t];
        s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, (int)m->vnc, ti->size, ti->name, &m->tensors[t]);
        if (s != NRT_SUCCESS) break;
        const int input = ti->usage == NRT_TENSOR_USAGE_INPUT;
        s = nrt_add_tensor_to_tensor_set(input ? m->inputs : m->outputs, ti->name, m->tensors[t]);
        if (s != NRT_SUCCESS || !input) continue;
        unsigned char* bytes = (unsigned char*)calloc(1, ti->size);
        fill_input(ti, bytes, k++);
        s = nrt_tensor_write(m->tensors[t], bytes, 0, ti->size);
        free(bytes);
    }
    SAY("alloc %s %s", name, name_of(s));
}

static void cmd_exec(const char* name) {
    struct loaded* m = find_model(name);
    if (m == NULL) {
        SAY("exec %s NO_MODEL", name);
        return;
    }
    SAY("exec %s %s", name, name_of(nrt_execute(m->model, m->inputs, m->outputs)));
}

static void cmd_outputs(const char* name) {
    struct loaded* m = find_model(name);
    if (m == NULL || m->info == NULL) {
        SAY("outputs %s NO_MODEL", name);
        return;
    }
    char line[2048];
    size_t used = (size_t)snprintf(line, sizeof line, "outputs %s", name);
    for (uint64_t t = 0; t < m->info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &m->info->tensor_array[t];
        if (ti->usage != NRT_TENSOR_USAGE_OUTPUT) continue;
        unsigned char* bytes = (unsigned char*)calloc(1, ti->size);
        const NRT_STATUS s = nrt_tensor_read(m->tensors[t], bytes, 0, ti->size);
        char shown[512];
        if (s == NRT_SUCCESS) {
            format_elements(dtype_name(ti->dtype), bytes, ti->size, shown, sizeof shown, 16);
        } else {
            snprintf(shown, sizeof shown, "%s", name_of(s));
        }
        free(bytes);
        used += (size_t)snprintf(line + used, sizeof line - used, " %s=%s", ti->name, shown);
        if (used >= sizeof line) break;
    }
    SAY("%s", line);
}

static void cmd_unload(const char* name) {
    struct loaded* m = find_model(name);
    if (m == NULL) {
        SAY("unload %s NO_MODEL", name);
        return;
    }
    const NRT_STATUS s = nrt_unload(m->model);
    release_tensors(m);
    nrt_free_model_tensor_info(m->info);
    m->info = NULL;
    if (s == NRT_SUCCESS) memset(m, 0, sizeof *m); /* else the handle stays the caller's */
    SAY("unload %s %s", name, name_of(s));
}

static void cmd_connect(int core) {
    int fd = -1;
    const NRT_STATUS s = nrt_debug_client_connect(core, &fd);
    int* slot = stream_slot(core);
    if (s == NRT_SUCCESS && slot != NULL) *slot = fd;
    SAY("connect %d %s", core, name_of(s));
}

static void cmd_close_stream(int core) {
    int* slot = stream_slot(core);
    if (slot != NULL && *slot >= 0) {
        nrt_debug_client_connect_close(*slot);
        *slot = -1;
    }
    SAY("close_stream %d done", core);
}

/* One read: the status, and the event when there was one. */
static NRT_STATUS read_event(int fd, char* shown, size_t size, long long* first) {
    ndebug_stream_event_header_t header;
    void* payload = NULL;
    const NRT_STATUS s = nrt_debug_client_read_one_event(fd, &header, &payload);
    shown[0] = '\0';
    if (s == NRT_SUCCESS) {
        const char* problem = event_problem(&header, payload);
        if (problem != NULL) {
            snprintf(shown, size, "MALFORMED %s", problem);
        } else {
            format_event(payload, shown, size);
            if (first != NULL) *first = first_element(payload);
        }
    }
    free(payload);
    return s;
}

static int fd_of(int core) {
    int* slot = stream_slot(core);
    return slot == NULL ? core : *slot;
}

static void cmd_read(int core) {
    char shown[1024];
    const NRT_STATUS s = read_event(fd_of(core), shown, sizeof shown, NULL);
    SAY("read %d %s%s%s", core, name_of(s), shown[0] != '\0' ? " " : "", shown);
}

static void cmd_wait(int core, long count) {
    const int fd = fd_of(core);
    long got = 0;
    while (got < count) {
        struct pollfd p;
        p.fd = fd;
        p.events = POLLIN;
        p.revents = 0;
        if (poll(&p, 1, wait_ms) <= 0) break;
        for (;;) {
            char shown[1024];
            const NRT_STATUS s = read_event(fd, shown, sizeof shown, NULL);
            if (s != NRT_SUCCESS) {
                if (s != NRT_QUEUE_EMPTY) SAY("event %d %s", core, name_of(s));
                break;
            }
            SAY("event %d %s", core, shown);
            ++got;
        }
    }
    SAY("wait %d got=%ld", core, got);
}

static void cmd_drain(int core) {
    const int fd = fd_of(core);
    long count = 0;
    int in_order = 1;
    NRT_STATUS s;
    for (;;) {
        char shown[1024];
        long long first = -1;
        s = read_event(fd, shown, sizeof shown, &first);
        if (s != NRT_SUCCESS) break;
        if (first != count && in_order) {
            in_order = 0;
            SAY("order %d broken at %ld: %s", core, count, shown);
        }
        ++count;
    }
    SAY("drain %d count=%ld in_order=%d end=%s", core, count, in_order, name_of(s));
}

int main(void) {
    for (int i = 0; i < max_streams; ++i) streams[i] = -1;
    char line[1024];
    while (next_line(line, sizeof line)) {
        char verb[32] = "";
        char a[512] = "";
        char b[512] = "";
        char c[64] = "";
        const int n = sscanf(line, "%31s %511s %511s %63s", verb, a, b, c);
        if (n <= 0) continue;
        if (strcmp(verb, "init") == 0) {
            const NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
            uint32_t visible = 0;
            if (s == NRT_SUCCESS) nrt_get_visible_nc_count(&visible);
            SAY("init %s visible=%u", name_of(s), (unsigned)visible);
        } else if (strcmp(verb, "close") == 0) {
            nrt_close();
            SAY("close done");
        } else if (strcmp(verb, "load") == 0) {
            cmd_load(a, b, n > 3 ? atoi(c) : -1);
        } else if (strcmp(verb, "alloc") == 0) {
            cmd_alloc(a);
        } else if (strcmp(verb, "exec") == 0) {
            cmd_exec(a);
        } else if (strcmp(verb, "outputs") == 0) {
            cmd_outputs(a);
        } else if (strcmp(verb, "unload") == 0) {
            cmd_unload(a);
        } else if (strcmp(verb, "memstats") == 0) {
            nrt_vnc_memory_stats_t stats;
            size_t got = 0;
            memset(&stats, 0, sizeof stats);
            const NRT_STATUS s = nrt_get_vnc_memory_stats((uint32_t)atoi(a), &stats, sizeof stats, &got);
            SAY("memstats %s %s used=%zu limit=%zu", a, name_of(s), stats.bytes_used, stats.bytes_limit);
        } else if (strcmp(verb, "connect") == 0) {
            cmd_connect(atoi(a));
        } else if (strcmp(verb, "close_stream") == 0) {
            cmd_close_stream(atoi(a));
        } else if (strcmp(verb, "read") == 0) {
            cmd_read(atoi(a));
        } else if (strcmp(verb, "pollable") == 0) {
            struct pollfd p;
            p.fd = fd_of(atoi(a));
            p.events = POLLIN;
            p.revents = 0;
            const int ready = poll(&p, 1, 0);
            SAY("pollable %s %d", a, ready > 0 && (p.revents & POLLIN) != 0 ? 1 : 0);
        } else if (strcmp(verb, "wait") == 0) {
            cmd_wait(atoi(a), atol(b));
        } else if (strcmp(verb, "drain") == 0) {
            cmd_drain(atoi(a));
        } else if (strcmp(verb, "exit") == 0) {
            SAY("exit");
            exit(0);
        } else if (strcmp(verb, "abort") == 0) {
            const struct rlimit none = {0, 0};
            setrlimit(RLIMIT_CORE, &none);
            SAY("abort");
            abort();
        } else if (strcmp(verb, "quit") == 0) {
            break;
        } else {
            SAY("%s UNKNOWN_COMMAND", verb);
        }
    }
    nrt_close();
    SAY("quit");
    return 0;
}
