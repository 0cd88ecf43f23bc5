// The console cases of __tests__/fixtures/node/console/, compared with what Node printed.
import { nodeCases } from "./node-cases.mjs";

nodeCases("console");
