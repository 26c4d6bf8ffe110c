/* Counts the calls Mbed TLS's driver wrappers make to the slicegen PSA driver (the check wires
 * sg_psa_driver_hit(op, status) after each call: emu/checks/psa_driver.py), so a run proves the
 * suites' one-shot GCM went through the driver. At exit the counts are appended to the file
 * $SLICEGEN_PSA_HITS names: "PROGRAM encrypt_served encrypt_declined decrypt_served
 * decrypt_declined" (declined: PSA_ERROR_NOT_SUPPORTED, the core fell back to its built-in code). */
#define _GNU_SOURCE                  /* glibc's program_invocation_short_name */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "psa/crypto.h"

unsigned long sg_psa_hits[2][2];    /* [0 encrypt, 1 decrypt][0 served, 1 declined] */

void sg_psa_driver_hit(int op, psa_status_t status)
{
    sg_psa_hits[op != 0][status == PSA_ERROR_NOT_SUPPORTED]++;
}

__attribute__((destructor)) static void sg_psa_hits_report(void)
{
    const char *path = getenv("SLICEGEN_PSA_HITS");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f != NULL) {
        fprintf(f, "%s %lu %lu %lu %lu\n", program_invocation_short_name, sg_psa_hits[0][0], sg_psa_hits[0][1], sg_psa_hits[1][0], sg_psa_hits[1][1]);
        fclose(f);
    }
}
