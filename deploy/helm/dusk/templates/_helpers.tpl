{{- define "dusk.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "dusk.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "dusk.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "dusk.serviceAccount" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (printf "%s-scheduler" (include "dusk.fullname" .)) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/* The scheduler scales the workers itself: adaptive, or per node. */}}
{{- define "dusk.scaled" -}}
{{- if or .Values.workers.adaptive.enabled (eq .Values.workers.parallelism.strategy "coefficient") -}}true{{- end -}}
{{- end -}}

{{- define "dusk.tlsArgs" -}}
- --tls-ca-file=/etc/dusk/tls/ca.pem
- --tls-cert=/etc/dusk/tls/{{ . }}.pem
- --tls-key=/etc/dusk/tls/{{ . }}-key.pem
{{- end -}}
