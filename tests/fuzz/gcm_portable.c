/* libFuzzer target: the portable AES-GCM drops (AES-128, -192 and -256 in one program: the input
 * picks the key size) against OpenSSL's libcrypto. The input also picks the operation (one-shot or
 * streaming encrypt/decrypt, ECB, GHASH), the IV length (12 bytes mostly, else 1..128 (OpenSSL's limit), 129..1024 (SP 800-38D written out: gcm_ref.h), or 0), the
 * tag length (allowed or not), the AAD and message lengths, the stream's split, in place or not,
 * the buffers' misalignment and a tampered bit. A divergence aborts with the case on stderr.
 * In the live mode (tests/fuzz/live.py) each input also runs on emulated Cortex-M drops.
 * Built by tests/fuzz/targets.py with -DSG_H128/-DSG_H192/-DSG_H256 (the headers' paths). */
#include <stdint.h>
#include <stddef.h>
#define AES128GCM_PORTABLE_IMPLEMENTATION
#define AES192GCM_PORTABLE_IMPLEMENTATION
#define AES256GCM_PORTABLE_IMPLEMENTATION
#include SG_H128
#include SG_H192
#include SG_H256
#define SG_ORACLE_CROSSCHECK 1
#include "ossl_gcm.h"
#include "live.h"
#define SG_LIVE 1
#define SG_D128 aes128gcm_portable
#define SG_D192 aes192gcm_portable
#define SG_D256 aes256gcm_portable
#include "gcm_entry.h"
