// list_devices: the OpenCL devices TILEGEMM_DEVICE can choose from, and the one it chooses now.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

int main() try {
  const std::vector<tilegemm::DeviceEntry> devices = tilegemm::list_devices();
  const char* env = std::getenv("TILEGEMM_DEVICE");
  const std::string spec = env ? env : "";

  cl_device_id chosen = nullptr;  // root device handles are the same in every list
  std::string problem;
  try {
    chosen = tilegemm::find_device(spec).device();
  } catch (const tilegemm::Error& e) {
    problem = e.what();
  }

  std::printf("tilegemm %s\nTILEGEMM_DEVICE=%s\n\n", tilegemm::library_version,
              env ? ("\"" + spec + "\"").c_str() : "(unset)");
  std::size_t gpus = 0;  // gpu:N numbers the GPUs in this order, from 0
  for (const tilegemm::DeviceEntry& d : devices) {
    const bool is_chosen = d.device() == chosen;
    const std::string number = d.type_name() == "gpu" ? "gpu:" + std::to_string(gpus++) : "";
    std::printf("%s %-12s %-7s %s\n", is_chosen ? "*" : " ", d.type_name().c_str(), number.c_str(), d.label().c_str());
  }
  if (!problem.empty()) std::printf("\nno device chosen: %s\n", problem.c_str());
  std::printf(
      "\n* marks the device tilegemm uses. Choose with TILEGEMM_DEVICE=cpu, gpu or accelerator (first of that type),\n"
      "gpu:N (the GPU numbered N above), local-rank (one GPU per MPI rank: the GPU numbered the local rank modulo\n"
      "the number of GPUs, from OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID), or any\n"
      "case-insensitive part of \"platform / device\" above; unset picks the first GPU, else the first "
      "device.\ntilegemm-tune times configurations on it for the default choice; TILEGEMM_VERBOSE=1 prints the one "
      "each product uses.\n");
  return problem.empty() ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const tilegemm::Error& e) {  // e.g. no OpenCL platform: the message says how to install one
  std::fprintf(stderr, "%s\n", e.what());
  return EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
