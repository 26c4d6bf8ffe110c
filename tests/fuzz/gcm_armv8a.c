/* The AES-GCM fuzz target's checks (tests/fuzz/gcm_body.h) on the ARMv8-A drops (AES-128/192/256),
 * for a static AArch64 program under qemu-aarch64 (tests/fuzz/replay_main.c replays the corpus of
 * tests/fuzz/gcm_portable.c): the oracle is the portable drops (tests/fuzz/oracle_portable.h).
 * Built by tests/fuzz/targets.py with -DSG_H128/192/256 (armv8a) and -DSG_P128/192/256 (portable). */
#include <stdint.h>
#include <stddef.h>
#define AES128GCM_PORTABLE_IMPLEMENTATION
#define AES192GCM_PORTABLE_IMPLEMENTATION
#define AES256GCM_PORTABLE_IMPLEMENTATION
#define AES128GCM_ARMV8A_IMPLEMENTATION
#define AES192GCM_ARMV8A_IMPLEMENTATION
#define AES256GCM_ARMV8A_IMPLEMENTATION
#include SG_P128
#include SG_P192
#include SG_P256
#include SG_H128
#include SG_H192
#include SG_H256
#include "oracle_portable.h"
#define SG_D128 aes128gcm_armv8a
#define SG_D192 aes192gcm_armv8a
#define SG_D256 aes256gcm_armv8a
#include "gcm_entry.h"
