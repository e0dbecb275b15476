// Many end-to-end tests run the CLI with spawnSync, which blocks this worker's event loop.
// vitest's worker waits at most 60 s for the main process to acknowledge each task update;
// the acknowledgement is a message that only a turn of the event loop delivers, so a file of
// back-to-back blocking tests on a loaded machine failed with "Timeout calling onTaskUpdate"
// although every test passed. One turn of the loop after each test delivers it in time.
import { afterEach } from "vitest";

afterEach(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
