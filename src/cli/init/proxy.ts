/** The `panoptes serve` configuration `panoptes init --host proxy` writes. */
export const PROXY_CONFIG = `# The OpenAI-compatible proxy, written by \`panoptes init --host proxy\`. Start it (from your project's folder):
#   npx panoptes serve --config panoptes/panoptes.yaml
# then point your agent's OpenAI client at http://127.0.0.1:4100/v1. Every chat completion is checked against
# workflow.yaml: a refund_order call before lookup_order is taken out of the answer before your agent can run it.
# Every key, and the PANOPTES_* variables that override them: node_modules/panoptes/docs/proxy.md
upstream: https://api.openai.com/v1
workflow: workflow.yaml
port: 4100
# Routes passed to the upstream unmonitored; any other non-generation route is refused. Many clients list models.
passthrough: ["/v1/models"]
# The semantic tier: states recognised by their exemplars, and loops repeated in other words. "lexical" needs nothing;
# "openai" takes any /v1/embeddings endpoint (url:, model:, api_key:), "transformers" a local model (model_path:).
# embeddings:
#   provider: lexical
# loops:
#   threshold: 0.95
#   window: 5
`;
