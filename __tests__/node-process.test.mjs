// The process cases of __tests__/fixtures/node/process/ (streams, exit,
// standard input, readline), compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("process");
