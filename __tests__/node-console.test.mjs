// The console cases of __tests__/fixtures/node/console/, compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("console");
