// The util.inspect cases of __tests__/fixtures/node/util/, compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("util");
