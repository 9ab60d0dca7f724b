// The UCP functions the binding calls, resolved with dlopen/dlsym from libucp.so.0 (not linked):
// a prebuilt addon made on a machine with UCX must still load where UCX is absent, and a rank of
// a single-host job must not pay for loading UCX at all. Compiled only when the build found
// UCX's headers (TSMPI_HAVE_UCX, set by binding.gyp through ucx_detect.cjs).
#ifndef TSMPI_UCX_API_H_
#define TSMPI_UCX_API_H_

#if TSMPI_HAVE_UCX

#include <napi.h>
#include <ucp/api/ucp.h>

#include <string>

namespace tsmpi {
namespace ucx {

struct Api {
  decltype(&ucp_get_version) get_version;
  decltype(&ucp_get_version_string) get_version_string;
  decltype(&ucp_config_read) config_read;
  decltype(&ucp_config_release) config_release;
  decltype(&ucp_init_version) init_version;
  decltype(&ucp_cleanup) cleanup;
  decltype(&ucp_worker_create) worker_create;
  decltype(&ucp_worker_destroy) worker_destroy;
  decltype(&ucp_worker_query) worker_query;
  decltype(&ucp_worker_get_address) worker_get_address;
  decltype(&ucp_worker_release_address) worker_release_address;
  decltype(&ucp_worker_progress) worker_progress;
  decltype(&ucp_worker_get_efd) worker_get_efd;
  decltype(&ucp_worker_arm) worker_arm;
  decltype(&ucp_worker_signal) worker_signal;
  decltype(&ucp_worker_flush_nbx) worker_flush_nbx;
  decltype(&ucp_worker_fence) worker_fence;
  decltype(&ucp_worker_set_am_recv_handler) worker_set_am_recv_handler;
  decltype(&ucp_ep_create) ep_create;
  decltype(&ucp_ep_close_nbx) ep_close_nbx;
  decltype(&ucp_ep_flush_nbx) ep_flush_nbx;
  decltype(&ucp_am_send_nbx) am_send_nbx;
  decltype(&ucp_am_recv_data_nbx) am_recv_data_nbx;
  decltype(&ucp_am_data_release) am_data_release;
  decltype(&ucp_request_free) request_free;
  decltype(&ucp_request_check_status) request_check_status;
  decltype(&ucp_mem_map) mem_map;
  decltype(&ucp_mem_unmap) mem_unmap;
  decltype(&ucp_rkey_pack) rkey_pack;
  decltype(&ucp_rkey_buffer_release) rkey_buffer_release;
  decltype(&ucp_ep_rkey_unpack) ep_rkey_unpack;
  decltype(&ucp_rkey_destroy) rkey_destroy;
  decltype(&ucp_put_nbx) put_nbx;
  decltype(&ucp_get_nbx) get_nbx;
  decltype(&ucp_atomic_op_nbx) atomic_op_nbx;
  decltype(&ucs_status_string) status_string;
};

// The resolved functions; valid once Loaded() is true.
extern Api api;

// Whether libucp is loaded and every function above resolved.
bool Loaded();

// Loads libucp once (path "" = TSMPI_UCX_LIBDIR's libucp.so.0 if the build recorded one, else
// the loader's search for libucp.so.0). Returns "" on success, else why not, naming the package
// to install. A failed load is remembered: later calls return the same reason.
std::string Load(const std::string& path);

// The library's file and version ("1.13.1"), once loaded.
const std::string& LoadedPath();
std::string VersionString();

// Throws Error{code: 'ENOSYS'} with the load failure (loading first if nobody tried), unless
// libucp is loaded. Every export that touches UCX starts with it.
void RequireLoaded(Napi::Env env, const char* call);

// "UCS_ERR_NO_MEMORY", ... for a status; "UCS_ERR_<n>" for one this build does not know.
const char* StatusName(ucs_status_t status);

// Throws Error{code: StatusName(status), ucsStatus: status} with "<what>: <UCX's text>".
[[noreturn]] void ThrowStatus(Napi::Env env, ucs_status_t status, const std::string& what);

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
#endif  // TSMPI_UCX_API_H_
