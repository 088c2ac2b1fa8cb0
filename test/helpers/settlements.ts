// A settlement as the service lists it (GET /v1/liquidaciones), for the small fake
// services that serve lists: 100.00 gross, 0.99 fee, estimated for the next day.
export interface Settlement {
  id: number;
  transaccion_id: number;
  cobro_id: number;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
  fecha_operacion: string;
  fecha_estimada: string;
  estado: string;
}

/** Settlement `id` of its transaction (the same id) and of request `cobroId`. */
export function settlement(id: number, cobroId = id): Settlement {
  return {
    id,
    transaccion_id: id,
    cobro_id: cobroId,
    bruto: '100.00',
    te_cobramos: '0.99',
    te_queda: '99.01',
    fecha_operacion: '2026-11-20 10:00:00',
    fecha_estimada: '2026-11-21 10:00:00',
    estado: 'estimado',
  };
}
