// The web cases of __tests__/fixtures/node/web/, compared with what Node printed.
import { nodeCases } from "./node-cases.mjs";

nodeCases("web");
