# The Quest app image used by compose.yaml (docs/deploy.md). CPU-only torch: the app embeds
# queries on the CPU; the language model runs in its own server (vLLM, Ollama, a hosted API).
FROM python:3.11-slim
WORKDIR /app
# The pinned dependencies first, in a layer of their own that stays cached while only Quest's code changes.
# requirements.txt also installs Quest itself (`-e .`), which needs the source: that line runs after the COPY below.
COPY requirements.txt requirements-fast.txt ./
RUN sed '/^-e /d' requirements.txt > /tmp/runtime.txt \
    && pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -r /tmp/runtime.txt
# `docker build --build-arg WITH_NUMBA=1 .` adds numba, the compiled whole-base sparse search: worth it for a base
# of 100k chunks or more (README, "The optional compiled sparse search"); below that it is never used (~210 MB).
ARG WITH_NUMBA=0
RUN if [ "$WITH_NUMBA" = 1 ]; then pip install --no-cache-dir -r requirements-fast.txt; fi
COPY . .
RUN pip install --no-cache-dir --no-deps -e .
ENV GRADIO_ANALYTICS_ENABLED=False
EXPOSE 7860
CMD ["python", "app.py"]
