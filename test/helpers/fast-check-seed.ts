// Every property test draws from one fixed seed, so that CI runs the same cases each time
// (vitest.config.ts loads this before each test file). FAST_CHECK_SEED explores other cases;
// a failure prints the seed and path to replay it.
import fc from "fast-check";

const seed = process.env.FAST_CHECK_SEED === undefined ? 20_241_113 : Number(process.env.FAST_CHECK_SEED);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
