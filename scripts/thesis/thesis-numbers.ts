/** The thesis's own results (../shared/SOURCES.md, section 002; tables of the original). */
export const THESIS = {
  /** Table 2.1: found pairs % by beam (iter_count 100, shift_count 50). */
  beam: [[60, 69.8], [70, 73.3], [80, 76.2], [90, 78.6]] as [number, number][],
  /** Tables 2.2, 2.3: found pairs % by shift_count (iter_count 500), beam 10 and beam 20. */
  shiftBeam10: [[10, 34.59], [20, 50.34], [30, 61.65], [40, 69.12], [50, 74.32], [60, 77.68], [70, 80.08], [80, 82.62], [90, 84.34]] as [number, number][],
  shiftBeam20: [[10, 50], [20, 67.71], [30, 79.05], [40, 85.39], [50, 89.42], [60, 91.6], [70, 93.03], [80, 94.53], [90, 95.45]] as [number, number][],
  /** Table 2.4: found pairs % by iter_count (beam 50, shift_count 40). */
  iterations: [[50, 37.5], [100, 60.3], [150, 72.9], [200, 78.7], [250, 84.4]] as [number, number][],
  /** Table 2.17: S (points) by signature length, tf, medium vocabulary. */
  lengthS: [[768, 2.381], [1024, 1.858], [1536, 1.175], [2048, 0.895], [2560, 0.721], [3072, 0.649], [3584, 0.511], [4096, 0.477]] as [number, number][],
  /** Table 2.59: minutes and found pairs % (644,566 documents, threshold 95, beam 50, shift 70). */
  timing: [
    ["hamming, 50 iterations", 18.22, 99.4],
    ["hamming, 100 iterations", 41.75, 99.61],
    ["hamming, 250 iterations", 107.47, 100],
    ["hamming_full", 912.47, null],
    ["similarity", 36259.11, null],
  ] as [string, number, number | null][],
};
