// What the README's LangChain example takes as given.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { DynamicStructuredTool } from "@langchain/core/tools";

declare global {
  // A chat model that can call tools (ChatOpenAI, ChatAnthropic, …).
  const chatModel: BaseChatModel & Required<Pick<BaseChatModel, "bindTools">>;
  const messages: BaseMessage[];
  const searchTool: DynamicStructuredTool;
  const priceTool: DynamicStructuredTool;
}
