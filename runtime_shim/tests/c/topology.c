/*
 * Topology and identity calls before nrt_init, after it, and the version.
 * One line each, for the harness to compare:
 *
 *   version STATUS major=M minor=m patch=p maintenance=x detail=... hash=...
 *   version_prefix STATUS untouched=0|1      (a 16-byte nrt_get_version)
 *   before total STATUS N
 *   before visible STATUS N
 *   before instance STATUS family=F size=S arch=A revision=R
 *   init STATUS
 *   after total STATUS N            (only when init succeeded, like the rest)
 *   after total_vnc STATUS N
 *   after visible STATUS N
 *   after visible_vnc STATUS N
 *   after instance STATUS family=F size=S arch=A revision=R
 *   after memory STATUS used=U limit=L
 *   closed
 */
#include "common.h"

#include <nrt/nrt_version.h>

static void say_instance(const char* when) {
    nrt_instance_info_t info;
    memset(&info, 0, sizeof info);
    const NRT_STATUS s = nrt_get_instance_info(&info, sizeof info);
    SAY("%s instance %s family=%u size=%u arch=%.16s revision=%.8s", when, nrt_get_status_as_str(s),
        (unsigned)info.family, (unsigned)info.size, info.arch_name, info.device_revision);
}

static void say_count(const char* when, const char* what, NRT_STATUS (*call)(uint32_t*)) {
    uint32_t n = 0xffffffffu;
    const NRT_STATUS s = call(&n);
    SAY("%s %s %s %u", when, what, nrt_get_status_as_str(s), (unsigned)n);
}

int main(void) {
    nrt_version_t version;
    memset(&version, 0, sizeof version);
    NRT_STATUS s = nrt_get_version(&version, sizeof version);
    SAY("version %s major=%llu minor=%llu patch=%llu maintenance=%llu detail=%s hash=%s", nrt_get_status_as_str(s),
        (unsigned long long)version.rt_major, (unsigned long long)version.rt_minor,
        (unsigned long long)version.rt_patch, (unsigned long long)version.rt_maintenance, version.rt_detail,
        version.git_hash);

    /* An older, smaller struct: only its bytes are written. */
    unsigned char prefix[sizeof(nrt_version_t)];
    memset(prefix, 0xAB, sizeof prefix);
    s = nrt_get_version((nrt_version_t*)(void*)prefix, 16);
    int untouched = 1;
    for (size_t i = 16; i < sizeof prefix; ++i) untouched = untouched && prefix[i] == 0xAB;
    SAY("version_prefix %s untouched=%d", nrt_get_status_as_str(s), untouched);

    say_count("before", "total", nrt_get_total_nc_count);
    say_count("before", "visible", nrt_get_visible_nc_count);
    say_instance("before");

    s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    SAY("init %s", nrt_get_status_as_str(s));
    if (s == NRT_SUCCESS) {
        say_count("after", "total", nrt_get_total_nc_count);
        say_count("after", "total_vnc", nrt_get_total_vnc_count);
        say_count("after", "visible", nrt_get_visible_nc_count);
        say_count("after", "visible_vnc", nrt_get_visible_vnc_count);
        say_instance("after");
        nrt_vnc_memory_stats_t stats;
        size_t got = 0;
        memset(&stats, 0, sizeof stats);
        s = nrt_get_vnc_memory_stats(0, &stats, sizeof stats, &got);
        SAY("after memory %s used=%zu limit=%zu size=%zu", nrt_get_status_as_str(s), stats.bytes_used,
            stats.bytes_limit, got);
        nrt_close();
    }
    SAY("closed");
    return 0;
}
