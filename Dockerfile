# The Quest app image used by compose.yaml (docs/deploy.md). CPU-only torch: the app embeds
# queries on the CPU; the language model runs in its own server (vLLM, Ollama, a hosted API).
FROM python:3.11-slim
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt
COPY . .
ENV GRADIO_ANALYTICS_ENABLED=False
EXPOSE 7860
CMD ["python", "app.py"]
