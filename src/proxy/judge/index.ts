export { createProxyJudge, type JudgeContext, type ProxyJudge, type TurnVerdict } from './proxy-judge.js';
export { endpointJudgeModel, type EndpointJudgeModelOptions } from './endpoint-model.js';
export { judgeFromConfig } from './from-config.js';
