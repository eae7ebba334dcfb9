#include "tensor/device.h"

#include <stdlib.h>
#include <string.h>

#ifdef PF_WITH_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "cuda_backend.h"
#endif

bool pf_device_cuda_built(void)
{
#ifdef PF_WITH_CUDA
    return true;
#else
    return false;
#endif
}

#ifdef PF_WITH_CUDA
/* The CUDA backend, loaded on first use (kernels/cuda_backend.h): from
 * $PF_CUDA_LIB, else ../lib/ beside this program's folder. */
static struct {
    bool tried;
    void *lib;
    int (*count)(void);
    pf_status (*open)(const pf_backend **);
    char why[PATH_MAX + 512];
} cu;

static bool cuda_load(void)
{
    if (cu.tried) return cu.lib != NULL;
    cu.tried = true;
    char path[PATH_MAX];
    const char *env = getenv("PF_CUDA_LIB");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0) {
            snprintf(cu.why, sizeof cu.why, "CUDA: cannot find this program's folder to load %s; set PF_CUDA_LIB",
                     PF_CUDA_LIB_FILE);
            return false;
        }
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(path, sizeof path, "%.*s/../lib/%s", (int)(sizeof path - 32), exe, PF_CUDA_LIB_FILE);
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(cu.why, sizeof cu.why, "CUDA: cannot load the CUDA backend: %s", dlerror());
        return false;
    }
    void (*link)(const pf_cuda_host *) = (void (*)(const pf_cuda_host *))dlsym(lib, "pf_cuda_link");
    cu.count = (int (*)(void))dlsym(lib, "pf_cuda_device_count");
    cu.open = (pf_status(*)(const pf_backend **))dlsym(lib, "pf_cuda_backend_open");
    if (!link || !cu.count || !cu.open) {
        snprintf(cu.why, sizeof cu.why, "CUDA: '%s' is not this build's CUDA backend (an entry point is missing)", path);
        dlclose(lib);
        return false;
    }
    const pf_cuda_host host = {pf_fail, pf_abort_at, pf_jet_stream, pf_jet_collapsed, pf_op_name};
    link(&host);
    cu.lib = lib;
    return true;
}
#endif

static pf_status open_cuda(const pf_backend **out)
{
    *out = NULL;
#ifdef PF_WITH_CUDA
    if (!cuda_load()) return pf_fail(PF_ERR_UNSUPPORTED, "%s", cu.why);
    return cu.open(out);
#else
    return pf_fail(PF_ERR_UNSUPPORTED,
                   "this build has no CUDA backend (nvcc was not found at build time, or CUDA=0)");
#endif
}

pf_status pf_device_open(const char *name, const pf_backend **out)
{
    const char *env = getenv("PF_DEVICE");
    bool automatic = !name || !*name || !strcmp(name, "auto");
    if (automatic && env && *env && strcmp(env, "auto") != 0) {
        name = env;
        automatic = false;
    }
    if (automatic) {
#ifdef PF_WITH_CUDA
        /* Without the NVIDIA driver's device file there is no GPU to see, and
         * the backend (cuBLAS) is not even loaded; a backend that cannot be
         * loaded sees none either: asking for cuda says why. */
        if (access("/dev/nvidiactl", F_OK) == 0 && cuda_load() && cu.count() > 0) return open_cuda(out);
#endif
        *out = pf_backend_cpu();
        return PF_OK;
    }
    if (!strcmp(name, "cpu")) {
        *out = pf_backend_cpu();
        return PF_OK;
    }
    if (!strcmp(name, "cuda")) return open_cuda(out);
    *out = NULL;
    return pf_fail(PF_ERR_INVALID, "unknown device '%s'%s (expected cpu, cuda or auto)", name,
                   name == env ? " in PF_DEVICE" : "");
}
