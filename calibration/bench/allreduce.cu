// allreduce.cu - NCCL all-reduce latency over all visible GPUs (one process, ncclCommInitAll),
// in servesim's allreduce table format (data/mfu/<gpu>/allreduce.csv):
//   num_gpus,message_elems,latency_us      bf16 sum, message_elems elements per rank
// Each size: 5 warm-ups, CUDA-event mean over 20 all-reduces on rank 0's stream.
// usage: allreduce > allreduce.csv        (needs >= 2 GPUs)
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "allreduce: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NC(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
	fprintf(stderr, "allreduce: %s: %s\n", #x, ncclGetErrorString(r_)); exit(1); } } while (0)

int main(void)
{
	int n = 0;
	CK(cudaGetDeviceCount(&n));
	if (n < 2) {
		fprintf(stderr, "allreduce: %d GPU(s) visible, need at least 2\n", n);
		return 2;
	}
	std::vector<ncclComm_t> comms(n);
	std::vector<cudaStream_t> st(n);
	std::vector<void *> buf(n);
	size_t maxe = 64ull << 20;
	NC(ncclCommInitAll(comms.data(), n, NULL));
	for (int g = 0; g < n; g++) {
		CK(cudaSetDevice(g));
		CK(cudaStreamCreate(&st[g]));
		CK(cudaMalloc(&buf[g], maxe * 2));
	}
	printf("# source: servesim calibration/bench/allreduce, NCCL %d, %d GPUs\n", NCCL_VERSION_CODE, n);
	printf("num_gpus,message_elems,latency_us\n");
	for (size_t e = 128; e <= maxe; e *= 2) {
		cudaEvent_t s, t;
		float ms = 0;
		CK(cudaSetDevice(0));
		CK(cudaEventCreate(&s));
		CK(cudaEventCreate(&t));
		for (int it = 0; it < 25; it++) {
			if (it == 5) {
				CK(cudaSetDevice(0));
				CK(cudaEventRecord(s, st[0]));
			}
			NC(ncclGroupStart());
			for (int g = 0; g < n; g++)
				NC(ncclAllReduce(buf[g], buf[g], e, ncclBfloat16, ncclSum, comms[g], st[g]));
			NC(ncclGroupEnd());
		}
		CK(cudaSetDevice(0));
		CK(cudaEventRecord(t, st[0]));
		for (int g = 0; g < n; g++) {
			CK(cudaSetDevice(g));
			CK(cudaStreamSynchronize(st[g]));
		}
		CK(cudaEventElapsedTime(&ms, s, t));
		printf("%d,%zu,%.3f\n", n, e, ms * 1000.0f / 20.0f);
	}
	for (int g = 0; g < n; g++)
		ncclCommDestroy(comms[g]);
	return 0;
}
