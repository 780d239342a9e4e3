def wrap_openai(*a, **k): raise NotImplementedError
class LlmUsage: pass
class ModelPrice: pass
