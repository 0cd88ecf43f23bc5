// The url cases of __tests__/fixtures/node/url/, compared with what Node printed.
import { nodeCases } from "./node-cases.mjs";

nodeCases("url");
