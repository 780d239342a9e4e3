import { App } from "aws-cdk-lib";
import { AgentTrackingStack } from "../lib/service-stack.js";

const app = new App();
new AgentTrackingStack(app, "AgentTracking");
