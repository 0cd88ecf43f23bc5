// The url cases of __tests__/fixtures/node/url/, compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("url");
