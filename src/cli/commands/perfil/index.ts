// svc login, svc logout and svc perfil listar|usar|borrar: keys and profiles
// (metadata only; each verb is its own file beside this one).
import { defineCommand, defineOptions, type CommandDef, type GroupDef } from '../../define.js';
import { DEFAULTS } from '../../../defaults.js';

export const group: GroupDef = {
  name: 'perfil',
  summary: 'perfiles guardados: listar, usar, borrar',
};

export const loginOptions = defineOptions([
  { flags: '--with-key-stdin', description: 'lee la clave de stdin en vez de preguntarla' },
  {
    flags: '--webhook-secret-stdin',
    description: 'lee el secreto de firma de stdin (después de la clave, en otra línea)',
  },
  {
    flags: '--zona <zona>',
    description: `zona horaria del servicio, si no es ${DEFAULTS.timeZone} (contra \`svc sandbox\` se toma la suya)`,
  },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'login',
    summary:
      'guarda una clave y la dirección en un perfil (una clave live, en el llavero del sistema si responde)',
    options: loginOptions,
    examples: [
      'svc login --base-url https://api.example.com',
      'printenv SVC_KEY | svc login --with-key-stdin --base-url http://127.0.0.1:8787',
    ],
    load: () => import('./login.js'),
  }),
  defineCommand({
    name: 'logout',
    summary: 'borra las claves y el secreto del perfil',
    examples: ['svc logout', 'svc logout --profile tienda2'],
    load: () => import('./logout.js'),
  }),
  defineCommand({
    name: 'perfil listar',
    aliases: ['list', 'ls'],
    summary: 'lista los perfiles guardados (las claves nunca se muestran enteras)',
    examples: ['svc perfil listar'],
    load: () => import('./listar.js'),
  }),
  defineCommand({
    name: 'perfil usar',
    aliases: ['use'],
    summary: 'elige el perfil por defecto',
    args: [{ name: 'nombre', description: 'nombre del perfil', required: true }],
    examples: ['svc perfil usar tienda2'],
    load: () => import('./usar.js'),
  }),
  defineCommand({
    name: 'perfil borrar',
    aliases: ['delete', 'rm'],
    summary: 'borra un perfil y sus claves',
    args: [{ name: 'nombre', description: 'nombre del perfil', required: true }],
    examples: ['svc perfil borrar viejo'],
    load: () => import('./borrar.js'),
  }),
];
