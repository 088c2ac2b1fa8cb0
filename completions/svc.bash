# completado de bash para svc: lo genera `svc completion bash`; no lo edites.
# Instalación: svc completion bash > ~/.local/share/bash-completion/completions/svc
_svc_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
  local value_opts=" --aplicar --base-url --body --cacert --cada --cobro --columnas --comprimir --concepto --conservar --data --demora --desde --error-url --escenario --estado --event --events --feriados --field --forward-timeout --forward-to --generar --hasta --header --host --http --input --journal --last --limit --lote --medio --method --metodo --monto --motivo --paralelo --path --plan --planes --por --por-pagina --port --profile --proxy --q --ready-delay --referencia --registro --request --resultado --retry-schedule --route --ruta --separador --set --signature --success-url --timestamp --tipo --token-archivo --tolerance --tolerancia --transaccion --tz --veces --vencimiento --webhook-url --zona "
  local paths="|api|cargos|caso|cobro|cobro crear|cobro create|cobro get|cobro list|cobro listar|cobro ls|cobro show|cobro sync|cobro ver|comandos|completion|cuenta|demo|devoluciones|devoluciones get|devoluciones list|devoluciones listar|devoluciones ls|devoluciones show|devoluciones ver|devolver|diagnostico|doctor|liquidaciones|liquidaciones conciliar|login|logout|mcp|perfil|perfil borrar|perfil delete|perfil list|perfil listar|perfil ls|perfil rm|perfil usar|perfil use|salud|sandbox|sandbox compactar|sandbox entregas|sandbox escenario|sandbox expirar|sandbox fallas|sandbox iniciar|sandbox log|sandbox pagar|sandbox rechazar|sandbox reenviar|sandbox reloj|sandbox webhook|sync|transacciones|transacciones get|transacciones list|transacciones listar|transacciones ls|transacciones show|transacciones ver|version|webhook|webhook conciliar|webhook eventos|webhook events|webhook listen|webhook probar|webhook replay|webhook sign|webhook trigger|webhook ver|webhook verify|"
  local path="" i w skip=0
  for ((i=1; i<COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*) [[ "$value_opts" == *" $w "* ]] && skip=1 ;;
      -*) ;;
      *) if [[ "$paths" == *"|${path:+$path }$w|"* ]]; then path="${path:+$path }$w"; fi ;;
    esac
  done
  local candidates=""
  case "$path|$prev" in
    'cobro listar|--estado') candidates='PENDIENTE EN_PROCESO PAGADA PAGADA_PARCIALMENTE CANCELADO DEVUELTA DEVUELTA_PARCIALMENTE' ;;
    'cobro list|--estado') candidates='PENDIENTE EN_PROCESO PAGADA PAGADA_PARCIALMENTE CANCELADO DEVUELTA DEVUELTA_PARCIALMENTE' ;;
    'cobro ls|--estado') candidates='PENDIENTE EN_PROCESO PAGADA PAGADA_PARCIALMENTE CANCELADO DEVUELTA DEVUELTA_PARCIALMENTE' ;;
    'transacciones listar|--medio') candidates='transferencia qr debito credito prepaga' ;;
    'transacciones listar|--estado') candidates='ACREDITADO RECHAZADO' ;;
    'transacciones list|--medio') candidates='transferencia qr debito credito prepaga' ;;
    'transacciones list|--estado') candidates='ACREDITADO RECHAZADO' ;;
    'transacciones ls|--medio') candidates='transferencia qr debito credito prepaga' ;;
    'transacciones ls|--estado') candidates='ACREDITADO RECHAZADO' ;;
    'liquidaciones|--por') candidates='estimada operacion' ;;
    'webhook sign|--event') candidates='payment.created payment.pending payment.approved payment.partially_paid payment.rejected payment.refunded payment.partially_refunded' ;;
    'webhook trigger|--estado') candidates='PENDIENTE EN_PROCESO PAGADA PAGADA_PARCIALMENTE CANCELADO DEVUELTA DEVUELTA_PARCIALMENTE' ;;
    'sandbox|--comprimir') candidates='gzip deflate br' ;;
    'sandbox pagar|--medio') candidates='transferencia qr debito credito prepaga' ;;
    'sandbox fallas|--tipo') candidates='500 500-despues 502-html 503 429 lento cortar cortar-despues' ;;
    *)
      if [[ "$value_opts" == *" $prev "* ]]; then COMPREPLY=(); return 0; fi
      case "$path" in
        '') candidates='salud diagnostico doctor cuenta cargos cobro sync transacciones devoluciones liquidaciones login logout perfil devolver caso webhook sandbox api mcp demo completion comandos version --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'api') candidates='--field --input --method --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cargos') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'caso') candidates='--referencia --markdown --journal --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro') candidates='listar list ls ver get show crear create sync --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro crear') candidates='--concepto --monto --vencimiento --referencia --success-url --error-url --no-tarjeta --no-qr --no-transferencia --mostrar-qr --lote --resultado --paralelo --separador --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro create') candidates='--concepto --monto --vencimiento --referencia --success-url --error-url --no-tarjeta --no-qr --no-transferencia --mostrar-qr --lote --resultado --paralelo --separador --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro get') candidates='--referencia --mostrar-qr --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro list') candidates='--estado --q --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro listar') candidates='--estado --q --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro ls') candidates='--estado --q --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro show') candidates='--referencia --mostrar-qr --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro sync') candidates='--referencia --mostrar-qr --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cobro ver') candidates='--referencia --mostrar-qr --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'comandos') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'completion') candidates='bash zsh fish --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'cuenta') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'demo') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones') candidates='listar list ls ver get show --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones get') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones list') candidates='--cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones listar') candidates='--cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones ls') candidates='--cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones show') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devoluciones ver') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'devolver') candidates='--monto --total --transaccion --referencia --plan --motivo --aplicar --lote --separador --resultado --paralelo --dry-run --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'diagnostico') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'doctor') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'liquidaciones') candidates='conciliar --por-fecha --por --cobro --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'liquidaciones conciliar') candidates='--columnas --tolerancia --separador --feriados --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'login') candidates='--with-key-stdin --webhook-secret-stdin --zona --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'logout') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'mcp') candidates='--http --token-archivo --registro --planes --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil') candidates='listar list ls usar use borrar delete rm --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil borrar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil delete') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil list') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil listar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil ls') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil rm') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil usar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'perfil use') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'salud') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox') candidates='compactar iniciar pagar rechazar expirar reenviar fallas log entregas webhook reloj escenario --host --port --data --webhook-url --tz --retry-schedule --ready-delay --por-pagina --comprimir --campos-extra --fechas-con-zona --estados-nuevos --escenario --generar --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox compactar') candidates='--data --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox entregas') candidates='--follow --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox escenario') candidates='exportar --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox expirar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox fallas') candidates='agregar listar borrar --ruta --metodo --tipo --veces --cada --demora --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox iniciar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox log') candidates='--follow --metodo --ruta --estado --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox pagar') candidates='--monto --medio --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox rechazar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox reenviar') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox reloj') candidates='avanzar reiniciar --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sandbox webhook') candidates='--borrar --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'sync') candidates='--referencia --mostrar-qr --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones') candidates='listar list ls ver get show --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones get') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones list') candidates='--medio --estado --cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones listar') candidates='--medio --estado --cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones ls') candidates='--medio --estado --cobro --referencia --desde --hasta --limit --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones show') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'transacciones ver') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'version') candidates='--json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook') candidates='verify sign listen trigger replay eventos events probar conciliar ver --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook conciliar') candidates='--desde --forward-to --anteriores --plan --aplicar --journal --secret-from-env --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook eventos') candidates='--limit --journal --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook events') candidates='--limit --journal --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook listen') candidates='--forward-to --host --port --path --events --route --header --forward-timeout --tolerance --journal --conservar --secret-from-env --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook probar') candidates='--forward-to --secret-from-env --tolerance --forward-timeout --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook replay') candidates='--last --all --forward-to --resign --header --forward-timeout --journal --secret-from-env --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook sign') candidates='--secret-from-env --timestamp --event --body --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook trigger') candidates='payment.created payment.pending payment.approved payment.partially_paid payment.rejected payment.refunded payment.partially_refunded --forward-to --cobro --estado --monto --set --header --forward-timeout --sandbox --secret-from-env --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook ver') candidates='--journal --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
        'webhook verify') candidates='--secret-from-env --timestamp --signature --body --request --tolerance --json --csv --profile --live --base-url --proxy --cacert --yes --no-input --no-color --no-pager --debug --help' ;;
      esac ;;
  esac
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}
complete -F _svc_complete svc
