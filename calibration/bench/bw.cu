// bw.cu - achievable HBM bandwidth per access pattern, for servesim tier 2.
//
//   sequential   one pass over a large buffer with 16-byte loads (weight streaming in GEMMs)
//   paged_kv     16-token KV blocks gathered in a random order from a pool (decode attention
//                over a paged cache: each block is contiguous, blocks are scattered)
//   mixed        reads of one buffer and writes of another, same size (activations)
//
// usage: bw [--gib N] [--block-bytes B] [--peak-tbps X] [--gpu ID] [-o tier2.json]
// Prints GB/s per pattern and, with --peak-tbps (the datasheet figure), writes the tier-2 file
// servesim reads (bw_eff = measured / peak).  Times are CUDA-event means over 20 runs after 3
// warm-ups.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>
#include <random>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "bw: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void read_seq(const uint4 *__restrict__ a, size_t n, unsigned long long *out)
{
	unsigned int acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = a[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678u)
		atomicAdd(out, 1ull);
}

// one CUDA block per KV block: blocks listed in `order`, each `words` uint4 long
__global__ void read_paged(const uint4 *__restrict__ pool, const int *__restrict__ order, int nblk,
			   size_t words, unsigned long long *out)
{
	unsigned int acc = 0;
	for (int b = blockIdx.x; b < nblk; b += gridDim.x) {
		const uint4 *p = pool + (size_t)order[b] * words;
		for (size_t i = threadIdx.x; i < words; i += blockDim.x) {
			uint4 v = p[i];
			acc ^= v.x ^ v.y ^ v.z ^ v.w;
		}
	}
	if (acc == 0x12345678u)
		atomicAdd(out, 1ull);
}

__global__ void copy_mixed(const uint4 *__restrict__ a, uint4 *__restrict__ b, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		b[i] = a[i];
}

template <typename F> static float time_ms(F f)
{
	cudaEvent_t s, t;
	float ms = 0;
	int i;
	CK(cudaEventCreate(&s));
	CK(cudaEventCreate(&t));
	for (i = 0; i < 3; i++)
		f();
	CK(cudaEventRecord(s));
	for (i = 0; i < 20; i++)
		f();
	CK(cudaEventRecord(t));
	CK(cudaEventSynchronize(t));
	CK(cudaEventElapsedTime(&ms, s, t));
	CK(cudaGetLastError());
	return ms / 20;
}

int main(int argc, char **argv)
{
	double gib = 4, peak_tbps = 0;
	size_t block_bytes = 64 * 1024; // 16 tokens x 2 (K,V) x 8 heads x 128 dims x 2 bytes
	const char *out_path = NULL, *gpu = "unknown";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gib") && i + 1 < argc) gib = atof(argv[++i]);
		else if (!strcmp(argv[i], "--block-bytes") && i + 1 < argc) block_bytes = strtoull(argv[++i], 0, 10);
		else if (!strcmp(argv[i], "--peak-tbps") && i + 1 < argc) peak_tbps = atof(argv[++i]);
		else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc) out_path = argv[++i];
		else { fprintf(stderr, "usage: bw [--gib N] [--block-bytes B] [--peak-tbps X] [--gpu ID] [-o FILE]\n"); return 2; }
	}
	size_t bytes = (size_t)(gib * (1ull << 30)) / block_bytes * block_bytes, words = bytes / 16;
	uint4 *a, *b;
	unsigned long long *sink;
	int *order;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMalloc(&sink, sizeof(*sink)));
	CK(cudaMemset(a, 1, bytes));
	int nblk = (int)(bytes / block_bytes);
	std::vector<int> h(nblk);
	for (int i = 0; i < nblk; i++) h[i] = i;
	std::mt19937 rng(42);
	std::shuffle(h.begin(), h.end(), rng);
	CK(cudaMalloc(&order, nblk * sizeof(int)));
	CK(cudaMemcpy(order, h.data(), nblk * sizeof(int), cudaMemcpyHostToDevice));
	int grid = prop.multiProcessorCount * 8;
	float t_seq = time_ms([&] { read_seq<<<grid, 512>>>(a, words, sink); });
	float t_kv = time_ms([&] { read_paged<<<grid, 256>>>(a, order, nblk, block_bytes / 16, sink); });
	float t_mix = time_ms([&] { copy_mixed<<<grid, 512>>>(a, b, words); });
	double gbs_seq = bytes / (t_seq * 1e-3) / 1e9, gbs_kv = bytes / (t_kv * 1e-3) / 1e9;
	double gbs_mix = 2.0 * bytes / (t_mix * 1e-3) / 1e9;
	printf("device %s, %d SMs, buffer %.2f GiB, KV block %zu bytes\n", prop.name, prop.multiProcessorCount,
	       bytes / (double)(1ull << 30), block_bytes);
	printf("sequential %.1f GB/s\npaged_kv   %.1f GB/s\nmixed      %.1f GB/s\n", gbs_seq, gbs_kv, gbs_mix);
	if (out_path && peak_tbps > 0) {
		FILE *f = fopen(out_path, "w");
		if (!f) { perror(out_path); return 1; }
		fprintf(f, "{\n  \"tier\": 2,\n  \"gpu\": \"%s\",\n  \"source\": \"calibration/bench/bw on %s, %.2f GiB buffer, %zu-byte KV blocks, datasheet %.3f TB/s\",\n"
			   "  \"measured\": {\"sequential_gbps\": %.1f, \"paged_kv_gbps\": %.1f, \"mixed_gbps\": %.1f},\n"
			   "  \"bw_eff\": {\"weights_sequential\": %.3f, \"kv_paged_gather\": %.3f, \"mixed\": %.3f}\n}\n",
			gpu, prop.name, bytes / (double)(1ull << 30), block_bytes, peak_tbps, gbs_seq, gbs_kv, gbs_mix,
			std::min(1.0, gbs_seq / (peak_tbps * 1e3)), std::min(1.0, gbs_kv / (peak_tbps * 1e3)),
			std::min(1.0, gbs_mix / (peak_tbps * 1e3)));
		fclose(f);
		printf("wrote %s\n", out_path);
	}
	cudaFree(a);
	cudaFree(b);
	cudaFree(order);
	cudaFree(sink);
	return 0;
}
