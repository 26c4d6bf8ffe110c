"""Evaluation orders of the fixsliced AES segments (op positions inside each segment,
see gen/kernels/aes/thumb2.py build(); 'ark+sbox' = AddRoundKey + S-box, '-lin:..' = a
linear segment without its AddRoundKey; 'fill:ark+sbox' = the FACE fill's, its own since
explore changed the kernel's: gen/kernels/face/thumb2.py; 'loop:ark+sbox' = the size
objective's looped kernel's, gen/kernels/aes/compact_thumb2.py; 'fpu:KIND' = KIND's own
order in the spill = "fpu" kernels (Cortex-M4F); 'ark+sbox@bpc113' = the S-box segment
with the other proven circuit, gen/circuits/aes_sbox.py). CIRCUIT = the
encrypt2 kernels' S-box circuit (`slicegen explore --space circuit`, gen/explore/circuit.py). Any topological order is correct.

Found by simulated annealing over topological orders (gen/kernels/aes/thumb2.search_order;
cost: the modelled cycles of the segment alone, spill code and its pipelining, or of the
whole kernel) and by CP-SAT (gen/explore/cpsat.py). Rewritten by `slicegen explore ...
--write-orders` (gen/explore/orders.py); HISTORY lists those runs, in order, each with
what it changed."""

HISTORY = (
    'slicegen explore aes128gcm-m4-ffs --budget 0 --seed 0 --space orders --kind=-lin:0:1 --iters 200 --cost segment --cpsat 20 --write-orders  # -lin:0:1: 2524 -> 2518 cycles per aes128gcm-m4-ffs call, candidate cpsat',
    'slicegen explore aes128gcm-m4-ffs --budget 0 --seed 0 --space orders --kind=-lin:0:3 --iters 200 --cost segment --cpsat 20 --write-orders  # -lin:0:3: 2518 -> 2514 cycles per aes128gcm-m4-ffs call, candidate cpsat',
    'slicegen explore aes128gcm-m4-ffs --budget 0 --seed 0 --space orders --kind=-lin:0:0 --iters 200 --cost segment --cpsat 20 --write-orders  # -lin:0:0: 2514 -> 2512 cycles per aes128gcm-m4-ffs call, candidate cpsat',
    'slicegen explore aes128gcm-m4-ffs --budget 0 --seed 0 --space orders --kind=-lin:0:2 --iters 200 --cost segment --cpsat 20 --write-orders  # -lin:0:2: 2512 -> 2512 cycles per aes128gcm-m4-ffs call, candidate stored',
    'slicegen explore aes128gcm-m4-ffs --budget 0 --seed 0 --space orders --kind=lin:0:- --iters 200 --cost segment --cpsat 20 --write-orders  # lin:0:-: 2512 -> 2512 cycles per aes128gcm-m4-ffs call, candidate stored',
    'slicegen explore aes128gcm-m4-sfs --budget 0 --seed 0 --space orders --kind=-lin:2:0 --iters 200 --cost segment --cpsat 20 --write-orders  # -lin:2:0: 2598 -> 2590 cycles per aes128gcm-m4-sfs call, candidate cpsat',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 12 --space orders --kind=ark+sbox --iters 300 --cost kernel --write-orders  # ark+sbox: 2512 -> 2506 cycles per aes128gcm-m4-ffs call, candidate 12',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 40 --space orders --kind=ark+sbox --iters 40 --cost kernel --write-orders  # ark+sbox: 2506 -> 2503 cycles per aes128gcm-m4-ffs call, candidate 40',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 7 --space orders --kind=ark+sbox --iters 250 --cost kernel --write-orders  # ark+sbox: 2503 -> 2492 cycles per aes128gcm-m4-ffs call, candidate 7',
    'slicegen explore aes128gcm-m4-size --budget 1 --seed 1 --space orders --kind=loop:ark+sbox --iters 60 --cost kernel --write-orders  # loop:ark+sbox: 2675 -> 2655 cycles per aes128gcm-m4-size call, candidate 1',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 8 --space orders --kind=ark+sbox --iters 400 --cost kernel --write-orders  # ark+sbox: 2492 -> 2483 cycles per aes128gcm-m4-ffs call, candidate 8',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 5 --space orders --kind=-lin:0:1 --iters 200 --cost kernel --write-orders  # -lin:0:1: 2483 -> 2480 cycles per aes128gcm-m4-ffs call, candidate 5',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 5 --space orders --kind=-lin:0:3 --iters 200 --cost kernel --write-orders  # -lin:0:3: 2480 -> 2478 cycles per aes128gcm-m4-ffs call, candidate 5',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 20 --space orders --kind=ark+sbox --iters 300 --cost kernel --write-orders  # ark+sbox: 2478 -> 2472 cycles per aes128gcm-m4-ffs call, candidate 20',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 1 --space orders --kind=ark+sbox@bpc113 --iters 600 --cost kernel --from-op 80 --write-orders  # ark+sbox@bpc113: 2527 -> 2472 cycles per aes128gcm-m4-ffs call, candidate 1',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 5 --space orders --kind=ark+sbox@bpc113 --iters 1000 --cost kernel --from-op 16 --write-orders  # ark+sbox@bpc113: 2472 -> 2462 cycles per aes128gcm-m4-ffs call, candidate 5',
    'slicegen explore aes128gcm-m4-ffs --budget 1 --seed 0 --space circuit --write-orders  # CIRCUIT bp115 -> bpc113: 2472 -> 2462 cycles per aes128gcm-m4-ffs call',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 7 --space orders --kind=ark+sbox@bpc113 --iters 1500 --cost kernel --from-op 16 --write-orders  # ark+sbox@bpc113: 2462 -> 2452 cycles per aes128gcm-m4-ffs call, candidate 7',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 9 --space orders --kind=ark+sbox@bpc113 --iters 1500 --cost kernel --write-orders  # ark+sbox@bpc113: 2452 -> 2447 cycles per aes128gcm-m4-ffs call, candidate 9',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 11 --space orders --kind=-lin:0:1 --iters 1000 --cost kernel --write-orders  # -lin:0:1: 2447 -> 2447 cycles per aes128gcm-m4-ffs call, candidate stored',
    'slicegen explore aes128gcm-m4-ffs --budget 2 --seed 15 --space orders --kind=ark+sbox@bpc113 --iters 1500 --cost kernel --from-op 16 --write-orders  # ark+sbox@bpc113: 2447 -> 2442 cycles per aes128gcm-m4-ffs call, candidate 15',
    'slicegen explore aes128gcm-m4f-ffs --budget 2 --seed 21 --space orders --kind=fpu:ark+sbox@bpc113 --iters 1500 --cost kernel --write-orders  # fpu:ark+sbox@bpc113: 2308 -> 2307 cycles per aes128gcm-m4f-ffs call, candidate 21',
    'slicegen explore aes128gcm-m4f-ffs --budget 1 --seed 34 --space orders --kind=fpu:ark+sbox@bpc113 --iters 250 --cost live --write-orders  # fpu:ark+sbox@bpc113: 2299 -> 2299 cycles per aes128gcm-m4f-ffs call, candidate stored',
)

CIRCUIT = 'bpc113'

ORDERS = {
    '-lin:0:0': (7, 8, 0, 9, 10, 11, 1, 12, 13, 2, 14, 15, 16, 3, 17, 18, 19, 4, 20, 21, 5, 22, 23, 6, 25, 26, 24),
    '-lin:0:1': (7, 6, 13, 9, 8, 16, 21, 22, 15, 17, 23, 26, 31, 50, 10, 11, 43, 27, 51, 48, 52, 12, 14, 28, 62, 29, 49, 53, 56, 44, 57, 4, 54, 55, 58, 3, 59, 60, 63, 1, 5, 0, 25, 45, 2, 34, 24, 46, 39, 61, 64, 40, 38, 37, 18, 41, 19, 20, 47, 30, 32, 70, 72, 71, 33, 35, 42, 66, 67, 73, 65, 74, 68, 69, 36),
    '-lin:0:2': (0, 21, 3, 1, 4, 2, 5, 22, 25, 18, 23, 7, 24, 6, 8, 19, 31, 32, 20, 33, 9, 30, 34, 35, 10, 11, 36, 26, 39, 37, 27, 38, 49, 40, 13, 42, 12, 14, 41, 43, 50, 15, 28, 16, 17, 29, 44, 47, 45, 46, 48),
    '-lin:0:3': (7, 6, 13, 9, 8, 16, 21, 22, 15, 17, 23, 26, 31, 50, 10, 11, 43, 27, 51, 48, 52, 12, 14, 28, 62, 29, 49, 53, 56, 44, 57, 4, 54, 55, 58, 3, 59, 60, 63, 1, 5, 0, 25, 45, 2, 34, 24, 46, 39, 61, 64, 40, 38, 37, 18, 41, 19, 20, 47, 30, 32, 70, 72, 71, 33, 35, 42, 66, 67, 73, 65, 74, 68, 69, 36),
    '-lin:2:0': (28, 29, 30, 31, 39, 24, 25, 26, 27, 20, 21, 22, 23, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 16, 17, 18, 19, 0, 1, 2, 3, 32, 40, 41, 42, 43, 33, 44, 45, 34, 46, 47, 48, 35, 49, 50, 51, 36, 52, 53, 37, 54, 55, 38, 57, 56, 58),
    'ark+sbox': (0, 4, 8, 2, 14, 15, 1, 3, 5, 9, 16, 12, 6, 10, 18, 19, 13, 17, 7, 23, 11, 27, 20, 21, 29, 28, 31, 32, 34, 36, 50, 25, 45, 24, 49, 33, 22, 47, 44, 52, 53, 46, 51, 56, 48, 37, 38, 60, 39, 57, 42, 30, 61, 43, 55, 26, 40, 41, 35, 54, 58, 59, 63, 67, 64, 68, 69, 70, 94, 72, 62, 85, 73, 65, 66, 71, 74, 75, 76, 77, 81, 78, 93, 102, 84, 83, 100, 92, 79, 82, 90, 91, 89, 109, 107, 99, 104, 110, 98, 101, 80, 96, 86, 108, 87, 114, 113, 117, 118, 119, 122, 121, 97, 95, 105, 88, 106, 112, 116, 127, 115, 120, 103, 126, 129, 128, 124, 125, 130, 111, 123),
    'ark+sbox@bpc113': (0, 4, 2, 3, 14, 8, 9, 1, 15, 5, 16, 12, 10, 6, 13, 17, 7, 11, 18, 23, 20, 27, 28, 29, 32, 19, 49, 31, 34, 21, 25, 50, 36, 45, 38, 33, 22, 24, 47, 37, 44, 46, 51, 52, 56, 53, 48, 57, 61, 60, 26, 39, 42, 43, 30, 55, 40, 41, 54, 58, 63, 35, 67, 59, 68, 69, 64, 70, 72, 73, 62, 75, 71, 74, 65, 66, 84, 76, 85, 81, 77, 78, 92, 93, 94, 100, 79, 83, 105, 82, 90, 104, 89, 91, 98, 99, 101, 102, 103, 121, 87, 96, 80, 86, 113, 88, 106, 108, 116, 111, 112, 97, 114, 95, 107, 115, 120, 118, 109, 110, 125, 123, 117, 126, 122, 119, 124, 127, 128),
    'fill:ark+sbox': (8, 0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 7, 16, 14, 15, 17, 23, 20, 27, 21, 18, 19, 29, 28, 32, 49, 31, 25, 34, 45, 50, 36, 51, 22, 33, 24, 47, 44, 46, 52, 56, 48, 37, 53, 57, 26, 38, 61, 39, 60, 42, 43, 30, 40, 41, 35, 55, 54, 59, 58, 67, 62, 63, 68, 69, 64, 70, 72, 71, 94, 73, 74, 93, 85, 65, 66, 81, 75, 76, 79, 102, 77, 92, 83, 78, 82, 91, 84, 90, 104, 107, 100, 89, 99, 110, 98, 109, 80, 101, 86, 96, 87, 114, 108, 113, 118, 119, 122, 117, 121, 97, 95, 88, 105, 103, 111, 106, 112, 116, 120, 125, 130, 126, 115, 127, 124, 128, 123, 129),
    'fpu:ark+sbox@bpc113': (0, 4, 2, 8, 3, 14, 9, 1, 5, 16, 12, 10, 15, 6, 17, 18, 11, 23, 13, 20, 7, 27, 29, 28, 32, 19, 31, 49, 34, 21, 25, 50, 36, 45, 38, 33, 22, 51, 24, 47, 37, 44, 46, 52, 53, 48, 56, 57, 61, 60, 26, 39, 42, 30, 43, 40, 41, 54, 58, 63, 35, 55, 59, 67, 64, 68, 69, 70, 72, 73, 62, 71, 75, 74, 65, 85, 66, 84, 76, 81, 77, 92, 93, 78, 100, 94, 83, 79, 105, 82, 90, 104, 89, 91, 98, 99, 101, 102, 103, 121, 87, 96, 80, 86, 113, 88, 106, 108, 111, 116, 112, 97, 122, 114, 95, 107, 120, 118, 119, 115, 109, 110, 125, 123, 117, 126, 127, 124, 128),
    'lin:0:-': (0, 1, 12, 13, 8, 4, 2, 9, 6, 10, 14, 15, 5, 7, 3, 11),
    'lin:0:0': (0, 1, 2, 13, 14, 3, 4, 5, 21, 22, 23, 6, 24, 25, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 20, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42),
    'lin:0:1': (4, 13, 19, 18, 20, 6, 30, 7, 3, 8, 5, 16, 15, 25, 17, 29, 65, 67, 12, 14, 0, 26, 1, 68, 2, 22, 21, 23, 66, 69, 45, 31, 72, 70, 73, 71, 37, 24, 28, 74, 39, 40, 41, 38, 10, 43, 9, 42, 11, 44, 27, 46, 34, 32, 56, 57, 55, 47, 35, 33, 54, 50, 51, 36, 49, 58, 48, 52, 59, 53, 62, 60, 63, 61, 64, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90),
    'lin:0:2': (0, 21, 3, 1, 4, 2, 5, 22, 25, 18, 23, 7, 24, 6, 8, 19, 31, 32, 20, 33, 9, 30, 34, 35, 10, 11, 36, 26, 39, 37, 27, 38, 49, 40, 13, 42, 63, 12, 14, 41, 43, 50, 55, 56, 57, 15, 28, 16, 17, 29, 44, 58, 47, 65, 45, 53, 54, 59, 46, 61, 60, 66, 62, 48, 51, 52, 64),
    'lin:0:3': (4, 13, 19, 18, 20, 6, 30, 7, 3, 8, 5, 16, 15, 25, 17, 29, 65, 67, 12, 14, 0, 26, 1, 68, 2, 22, 21, 23, 66, 69, 45, 31, 72, 70, 73, 71, 37, 24, 28, 74, 39, 40, 41, 38, 10, 43, 9, 42, 11, 44, 27, 46, 34, 32, 56, 57, 55, 47, 35, 33, 54, 50, 51, 36, 49, 58, 48, 52, 59, 53, 62, 60, 63, 61, 64, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90),
    'lin:2:0': (8, 4, 24, 0, 28, 29, 5, 25, 16, 6, 30, 26, 27, 9, 31, 7, 17, 10, 20, 21, 11, 33, 18, 1, 12, 22, 13, 14, 2, 15, 34, 45, 23, 46, 39, 38, 19, 37, 55, 57, 56, 3, 35, 50, 51, 47, 58, 48, 36, 53, 49, 52, 65, 54, 73, 74, 32, 42, 43, 63, 44, 40, 61, 59, 41, 66, 69, 67, 71, 70, 72, 62, 68, 60, 64),
    'loop:ark+sbox': (8, 0, 4, 2, 9, 14, 15, 5, 16, 3, 10, 6, 12, 7, 1, 18, 13, 17, 23, 11, 27, 20, 29, 21, 19, 28, 32, 31, 34, 25, 50, 33, 45, 49, 24, 47, 36, 44, 46, 52, 48, 51, 38, 56, 22, 53, 57, 37, 39, 42, 30, 61, 60, 26, 40, 43, 55, 35, 41, 59, 54, 58, 63, 67, 68, 64, 69, 62, 70, 72, 73, 94, 85, 71, 74, 65, 93, 75, 66, 79, 76, 77, 84, 102, 81, 83, 78, 92, 82, 90, 100, 91, 104, 89, 107, 99, 110, 98, 109, 80, 101, 87, 86, 96, 95, 113, 114, 108, 117, 119, 118, 122, 121, 97, 88, 105, 112, 116, 115, 120, 103, 111, 126, 125, 106, 129, 124, 128, 127, 130, 123),
    'sbox': (0, 1, 7, 4, 11, 5, 2, 3, 13, 12, 16, 33, 15, 18, 9, 29, 34, 20, 17, 35, 6, 8, 31, 28, 30, 36, 40, 32, 21, 37, 41, 10, 22, 45, 23, 44, 26, 27, 14, 24, 25, 19, 39, 38, 43, 42, 51, 46, 47, 52, 53, 48, 54, 56, 55, 78, 57, 58, 77, 69, 49, 50, 65, 59, 60, 63, 86, 61, 76, 67, 62, 66, 75, 68, 74, 88, 91, 84, 73, 83, 94, 93, 82, 64, 85, 70, 80, 71, 98, 92, 97, 102, 103, 106, 101, 105, 81, 79, 72, 87, 89, 95, 90, 96, 100, 104, 109, 114, 110, 99, 111, 108, 112, 107, 113),
}
