import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkPairs } from "../../scripts/quality/check-pairs.js";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

// The quality bar, on 3,000 real documents (King James Bible passages with planted
// edited copies): tf vectors, threshold 0.9, other options at their defaults; --pairs all,
// for the pair-level measures need every pair found, not the spanning forest.
describe("quality against exact tf cosine on kjv-3000", () => {
  it("finds ≥ 95% of the pairs with cosine ≥ 0.97, and ≥ 95% of reported pairs have cosine ≥ 0.8", async () => {
    const corpus = "data-samples/kjv-3000.vert.gz";
    const out = tempDir();
    const r = vertdup(["run", corpus, "-o", out, "--weighting", "tf", "--threshold", "0.9", "--pairs", "all", "--quiet"]);
    expect(r.status).toBe(0);
    const c = await checkPairs(corpus, join(out, "pairs.tsv"), {
      weighting: "tf",
      recallCutoffs: [0.97],
      precisionCutoffs: [0.8],
      recallAt: 0.97,
      precisionAt: 0.8,
    });
    expect(c.headline.exactPairs).toBeGreaterThan(500);
    expect(c.headline.recall).toBeGreaterThanOrEqual(0.95);
    expect(c.headline.reported).toBeGreaterThan(500);
    expect(c.headline.precision).toBeGreaterThanOrEqual(0.95);
  });
});
