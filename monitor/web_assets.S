/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's files (monitor/web/) inside t2t-monitor, so that the
 * program serves them wherever it runs.  Each is name .. name_end.
 */
	.macro asset name, file
	.global \name, \name\()_end
	.balign 16
\name:
	.incbin "\file"
\name\()_end:
	.byte 0
	.endm

	.section .rodata
	asset web_index_html, "monitor/web/index.html"
	asset web_app_js, "monitor/web/app.js"
	asset web_chart_js, "monitor/web/chart.js"
	asset web_style_css, "monitor/web/style.css"

	.section .note.GNU-stack, "", @progbits
