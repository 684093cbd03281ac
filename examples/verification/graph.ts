/**
 * The graph `langgraph.json` serves (LangGraph Studio, `npx @langchain/langgraph-cli dev` in this folder): it shows
 * as `panoptes_verifier`, with its input (`caseBundle`, `criterion`) and its output (`result`) only. The server
 * brings its own checkpointer, so this one has none.
 */
import { createVerifier } from './create-verifier.js';

export const verifier = await createVerifier();
