// gemm.cu - cuBLASLt GEMM sweep in servesim's gemm table format (data/mfu/<gpu>/gemm.csv):
//   dtype,m,n,k,latency_us      Y[m,n] = X[m,k] W[n,k]^T, per-GPU shapes
// bf16 always; fp8 (e4m3, per-tensor scale 1) on GPUs with fp8 tensor cores.  Each shape:
// cuBLASLt's best heuristic algorithm, 3 warm-ups, CUDA-event mean over 20 runs.  Operands hold
// pseudo-random values in [-1, 1) of the dtype timed: on zeros a Hopper GPU runs compute-bound GEMMs
// faster than on real weights (random operands take a median 18 % longer at m, n, k >= 1024 on an
// H200, calibration/tier2/).
// usage: gemm [--quick] [--graphs] [--zeros] > gemm.csv   (then gzip it into data/mfu/<gpu>/gemm.csv.gz)
// --graphs captures each shape's 20 timed calls in one CUDA graph (as engines replay decode steps), so
// shapes shorter than a host launch time the kernels rather than the launch rate; --zeros times all-zero
// operands instead of random ones (to measure what timing uninitialised weights does).
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "gemm: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define LT(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
	fprintf(stderr, "gemm: %s: status %d\n", #x, (int)s_); return -1.0f; } } while (0)

static const int M[] = {1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192};
static const int NK[] = {128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 28672};
static const int NK_QUICK[] = {1024, 4096, 8192, 14336};

static void *workspace;

// n elements of pseudo-random values in [-1, 1): bf16, or fp8 e4m3 (never NaN) when fp8
__global__ void fill(void *p, size_t n, bool fp8, unsigned seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		unsigned h = (unsigned)i * 2654435761u ^ seed;
		h ^= h >> 16;
		h *= 0x85ebca6bu;
		h ^= h >> 13;
		float v = (float)(h & 0xffffff) / 8388608.0f - 1.0f;
		if (fp8)
			((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(v);
		else
			((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
	}
}

static const size_t WS = 64ull << 20;
static cudaStream_t stream;
static bool graphs; // --graphs: time each shape's 20 calls as one CUDA graph
static bool zeros;  // --zeros: all-zero operands (what an uninitialised allocation usually holds)

// returns microseconds per GEMM, or < 0 when no algorithm exists
static float run(cublasLtHandle_t lt, bool fp8, int m, int n, int k, void *X, void *W, void *Y)
{
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t heur;
	int found = 0;
	cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF, outt = CUDA_R_16BF;
	cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
	float alpha = 1, beta = 0, ms = 0;
	cudaEvent_t s, t;

	// column-major view: Y^T[n,m] = W[n,k] * X^T[k,m]
	LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof(tA)));
	LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof(tB)));
	LT(cublasLtMatrixLayoutCreate(&la, in, k, n, k));
	LT(cublasLtMatrixLayoutCreate(&lb, in, k, m, k));
	LT(cublasLtMatrixLayoutCreate(&lc, outt, n, m, n));
	LT(cublasLtMatmulPreferenceCreate(&pref));
	LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WS, sizeof(WS)));
	if (cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found) != CUBLAS_STATUS_SUCCESS || !found)
		return -1;
	CK(cudaEventCreate(&s));
	CK(cudaEventCreate(&t));
	for (int i = 0; i < 3; i++)
		LT(cublasLtMatmul(lt, op, &alpha, W, la, X, lb, &beta, Y, lc, Y, lc, &heur.algo, workspace, WS, stream));
	if (graphs) { // the 20 calls captured in one CUDA graph, as the engines replay decode steps
		cudaGraph_t g;
		cudaGraphExec_t ge;
		cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
		CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
		for (int i = 0; i < 20 && st == CUBLAS_STATUS_SUCCESS; i++)
			st = cublasLtMatmul(lt, op, &alpha, W, la, X, lb, &beta, Y, lc, Y, lc, &heur.algo, workspace, WS, stream);
		CK(cudaStreamEndCapture(stream, &g));
		if (st != CUBLAS_STATUS_SUCCESS) {
			fprintf(stderr, "gemm: cublasLtMatmul in capture: status %d\n", (int)st);
			cudaGraphDestroy(g);
			return -1.0f;
		}
		CK(cudaGraphInstantiate(&ge, g, 0));
		CK(cudaGraphLaunch(ge, stream)); // upload and warm
		CK(cudaEventRecord(s, stream));
		CK(cudaGraphLaunch(ge, stream));
		CK(cudaEventRecord(t, stream));
		CK(cudaEventSynchronize(t));
		cudaGraphExecDestroy(ge);
		cudaGraphDestroy(g);
	} else {
		CK(cudaEventRecord(s, stream));
		for (int i = 0; i < 20; i++)
			LT(cublasLtMatmul(lt, op, &alpha, W, la, X, lb, &beta, Y, lc, Y, lc, &heur.algo, workspace, WS, stream));
		CK(cudaEventRecord(t, stream));
		CK(cudaEventSynchronize(t));
	}
	CK(cudaEventElapsedTime(&ms, s, t));
	cudaEventDestroy(s);
	cudaEventDestroy(t);
	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(op);
	return ms * 1000.0f / 20.0f;
}

int main(int argc, char **argv)
{
	const int *nk = NK;
	int nnk = (int)(sizeof(NK) / sizeof(NK[0]));
	cudaDeviceProp prop;
	cublasLtHandle_t lt;
	void *X, *W, *Y;
	size_t maxe = (size_t)8192 * 28672, maxw = (size_t)28672 * 28672; // X and Y at most m x 28672, W n x k

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			nk = NK_QUICK;
			nnk = (int)(sizeof(NK_QUICK) / sizeof(NK_QUICK[0]));
		}
		else if (!strcmp(argv[i], "--graphs"))
			graphs = true;
		else if (!strcmp(argv[i], "--zeros"))
			zeros = true;
		else {
			fprintf(stderr, "usage: gemm [--quick] [--graphs] [--zeros] > gemm.csv\n");
			return 2;
		}
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	bool has_fp8 = prop.major > 8 || (prop.major == 8 && prop.minor >= 9);
	if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "gemm: cublasLtCreate failed\n");
		return 1;
	}
	CK(cudaMalloc(&workspace, WS));
	CK(cudaMalloc(&X, maxe * 2));
	CK(cudaMalloc(&W, maxw * 2));
	CK(cudaMalloc(&Y, maxe * 2));
	printf("# source: servesim calibration/bench/gemm on %s (cuBLASLt, best heuristic algorithm, %s operands%s)\n",
	       prop.name, zeros ? "all-zero" : "random", graphs ? ", 20 calls per CUDA graph" : ", launched back to back");
	printf("# latency in microseconds, one call on one GPU\ndtype,m,n,k,latency_us\n");
	for (int f = 0; f < (has_fp8 ? 2 : 1); f++) {
		if (zeros) {
			CK(cudaMemset(X, 0, maxe * 2));
			CK(cudaMemset(W, 0, maxw * 2));
		} else {
			fill<<<prop.multiProcessorCount * 8, 256>>>(X, maxe, f == 1, 1u);
			fill<<<prop.multiProcessorCount * 8, 256>>>(W, maxw, f == 1, 2u);
		}
		CK(cudaMemset(Y, 0, maxe * 2));
		CK(cudaDeviceSynchronize());
		for (size_t mi = 0; mi < sizeof(M) / sizeof(M[0]); mi++)
			for (int ni = 0; ni < nnk; ni++)
				for (int ki = 0; ki < nnk; ki++) {
					float us = run(lt, f == 1, M[mi], nk[ni], nk[ki], X, W, Y);
					if (us > 0)
						printf("%s,%d,%d,%d,%.4f\n", f ? "fp8" : "bf16", M[mi], nk[ni], nk[ki], us);
				}
	}
	cublasLtDestroy(lt);
	return 0;
}
