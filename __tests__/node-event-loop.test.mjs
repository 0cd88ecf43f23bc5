// The event-loop cases of __tests__/fixtures/node/event-loop/, compared with what Node printed.
import { nodeCases } from "./node-cases.mjs";

nodeCases("event-loop");
