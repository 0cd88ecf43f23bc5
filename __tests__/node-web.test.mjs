// The web cases of __tests__/fixtures/node/web/, compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("web");
