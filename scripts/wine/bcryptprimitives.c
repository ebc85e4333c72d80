/*
 * A stand-in for Windows' bcryptprimitives.dll, for wine releases that lack
 * it (Debian 12's wine 8.0): Go 1.22+ programs take their random bytes from
 * its export ProcessPrng (Go 1.26 src/runtime/os_windows.go) and die at
 * start without it. ProcessPrng fills data with len random bytes and
 * returns TRUE (Windows 10+ documents it as always succeeding); here it asks
 * RtlGenRandom (advapi32's SystemFunction036), which wine implements, in
 * chunks that fit its ULONG length. Built by scripts/windows-tests into the
 * wine prefix only; never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
